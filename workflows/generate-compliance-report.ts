import { ApplicationFailure, continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { ComplianceReportProjection, createComplianceActivities } from '../activities/compliance';
import { DATABASE_ACTIVITY_RETRY, FAILURE_TYPES } from '../contracts/failures';
import type { GenerateComplianceReportInput, ScanCursor } from '../contracts/generate-compliance-report';
import {
  buildComplianceReport,
  emptyTally,
  mergeTallies,
  quarterRange,
  type ComplianceReport,
  type ComplianceTally,
} from '../domain/provenance/compliance';

/** The root cause's message: an activity's failure wraps the error that made it fail. */
function rootMessage(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

type ComplianceActivities = ReturnType<typeof createComplianceActivities>;

/** Where a run's scan ended: at the period's end with the report built, or after its share of pages. */
type ScanOutcome =
  { kind: 'continue'; tally: ComplianceTally; after: ScanCursor | null } | { kind: 'done'; report: ComplianceReport };

/**
 * Generates a compliance report: scans the period's records page by page (each page tallied by an
 * activity, so a period of millions of records never passes through the workflow), adds the tallies up,
 * and projects the report into Postgres, where GET report_url serves it. The workflow id is the report id.
 */
export async function generateComplianceReportWorkflow(
  input: GenerateComplianceReportInput,
): Promise<ComplianceReport> {
  const activities = proxyActivities<ComplianceActivities>({
    startToCloseTimeout: input.activity_timeout_ms,
    retry: DATABASE_ACTIVITY_RETRY,
  });
  const project = (changes: Pick<ComplianceReportProjection, 'version' | 'status' | 'report' | 'error'>) =>
    activities.projectComplianceReport({
      report_id: input.report_id,
      request: input.request,
      requested_by: input.requested_by,
      organization_id: input.organization_id,
      created_at: input.created_at,
      updated_at: new Date().toISOString(),
      ...changes,
    });

  const range = quarterRange(input.request.period);
  if (!range)
    throw ApplicationFailure.create({
      type: FAILURE_TYPES.invalidPeriod,
      message: `${input.request.period} is not a quarter (YYYY-Qn)`,
      nonRetryable: true,
    });
  if (!input.carried) await project({ version: 1, status: 'generating', report: null, error: null });

  let outcome: ScanOutcome;
  try {
    outcome = await scan(activities, input, range);
    if (outcome.kind === 'done') await project({ version: 2, status: 'ready', report: outcome.report, error: null });
  } catch (error) {
    // A failed report says so where clients look for it, then the workflow fails as it should.
    await project({ version: 2, status: 'failed', report: null, error: rootMessage(error) });
    throw error;
  }
  if (outcome.kind === 'continue')
    return continueAsNew<typeof generateComplianceReportWorkflow>({
      ...input,
      carried: { tally: outcome.tally, after: outcome.after },
    });
  return outcome.report;
}

/**
 * Scans the period from where the run before stopped, page by page, for this run's share of pages; a scan
 * that reaches the period's end builds the report.
 */
async function scan(
  activities: ComplianceActivities,
  input: GenerateComplianceReportInput,
  range: { start: string; end: string },
): Promise<ScanOutcome> {
  let tally = input.carried?.tally ?? emptyTally();
  let after = input.carried?.after ?? null;
  for (let pages = 0; pages !== input.pages_before_continue_as_new; pages += 1) {
    const page = await activities.scanCompliancePage({
      range,
      domains: input.request.domains,
      organization_id: input.organization_id,
      after,
      page_size: input.page_size,
      max_violations: input.max_violations,
    });
    tally = mergeTallies(tally, page.tally, input.max_violations);
    if (!page.next) {
      const report = buildComplianceReport({
        report_id: input.report_id,
        request: input.request,
        range,
        tally,
        generated_at: new Date().toISOString(),
        ledger: await activities.latestLedgerSnapshot(),
        report_url: input.report_url,
      });
      return { kind: 'done', report };
    }
    after = page.next;
  }
  return { kind: 'continue', tally, after };
}
