import type { Client, WorkflowHandle } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ComplianceReport, ComplianceRequest } from '../../domain/provenance/compliance-types';
import {
  GENERATE_COMPLIANCE_REPORT_WORKFLOW,
  type GenerateComplianceReportInput,
  type GenerateComplianceReportWorkflow,
} from '../../contracts/generate-compliance-report';
import { resourceId } from '../../lib/ids';

export interface ComplianceServiceDeps {
  temporal: Client;
  taskQueue: string;
  publicBaseUrl: string;
}

/** How a report workflow works through a period: what `npm run bench` and the tests rely on. */
export const REPORT_SCAN = {
  page_size: 1000,
  max_violations: 500,
  pages_before_continue_as_new: 200,
  activity_timeout_ms: 60_000,
} as const;

/** Like routing ids: with an Idempotency-Key the report id derives from it, so a retry reaches the same report. */
export function reportIdFor(principalId: string, idempotencyKey: string | undefined): string {
  return resourceId('rpt', principalId, idempotencyKey);
}

export function reportUrl(publicBaseUrl: string, reportId: string): string {
  return `${publicBaseUrl.replace(/\/$/, '')}/v1/orch/compliance/reports/${reportId}`;
}

/** The memo key naming a report workflow's organization. */
export const REPORT_ORGANIZATION_MEMO = 'organization_id';

export type RequestReportOutcome =
  { done: true; report: ComplianceReport } | { done: false; report_id: string; report_url: string };

/**
 * Starts the report's workflow (workflow id = report id; an existing one is reused) and waits up to
 * `waitMs` for it: a small period is answered at once, a large one is left to run and served at its
 * report_url when ready.
 */
export async function requestComplianceReport(
  deps: ComplianceServiceDeps,
  input: {
    report_id: string;
    request: ComplianceRequest;
    requested_by: string;
    organization_id: string;
    waitMs: number;
    now: Date;
  },
): Promise<RequestReportOutcome> {
  const url = reportUrl(deps.publicBaseUrl, input.report_id);
  const args: GenerateComplianceReportInput = {
    report_id: input.report_id,
    request: input.request,
    requested_by: input.requested_by,
    organization_id: input.organization_id,
    report_url: url,
    created_at: input.now.toISOString(),
    ...REPORT_SCAN,
  };
  let handle: WorkflowHandle<GenerateComplianceReportWorkflow>;
  try {
    handle = await deps.temporal.workflow.start<GenerateComplianceReportWorkflow>(GENERATE_COMPLIANCE_REPORT_WORKFLOW, {
      workflowId: input.report_id,
      taskQueue: deps.taskQueue,
      args: [args],
      // Read before the report is projected, to answer its organization only.
      memo: { [REPORT_ORGANIZATION_MEMO]: input.organization_id },
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A retry of a finished report reads its result instead of generating it again.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    handle = deps.temporal.workflow.getHandle<GenerateComplianceReportWorkflow>(input.report_id);
  }
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), input.waitMs);
  });
  try {
    const report = await Promise.race([handle.result(), waited]);
    return report ? { done: true, report } : { done: false, report_id: input.report_id, report_url: url };
  } finally {
    clearTimeout(timer);
  }
}
