/**
 * Compliance reports, computed from a period's provenance records: the spec's summary counts, the checks
 * behind the HIPAA, GDPR and SOX flags, the Rule of Threes adherence and recommendations drawn from the
 * data. Records are tallied one page at a time (tallyRecords) and the tallies added up (mergeTallies), so
 * a workflow can cover a period of any size; buildComplianceReport turns the total into the report.
 */
import { CHECK_IDS, COMPLIANCE_CHECKS, type Framework } from './compliance-checks';
import { countTaskType, tallyRecord, type Fail } from './compliance-record-tally';
import { recommendationsFor } from './compliance-recommendations';
import {
  TALLY_COUNTS,
  type ComplianceRecord,
  type ComplianceReport,
  type ComplianceRequest,
  type ComplianceTally,
  type LedgerSnapshot,
  type TallyCounts,
} from './compliance-types';

export { personalDataIn } from './personal-data';
export { COMPLIANCE_CHECKS } from './compliance-checks';
export type { ComplianceRecord, ComplianceReport, ComplianceRequest, ComplianceTally } from './compliance-types';

export function emptyTally(): ComplianceTally {
  const counts = Object.fromEntries(TALLY_COUNTS.map((name) => [name, 0])) as TallyCounts;
  const failures = Object.fromEntries(CHECK_IDS.map((id) => [id, 0])) as ComplianceTally['failures'];
  return { ...counts, failures, task_types: [], violations: [] };
}

/** "2026-Q3" as the instants [start, end) in UTC; undefined for anything else. */
export function quarterRange(period: string): { start: string; end: string } | undefined {
  const match = /^(\d{4})-Q([1-4])$/.exec(period);
  if (!match) return undefined;
  const year = Number(match[1]);
  const quarter = Number(match[2]);
  const month = (quarter - 1) * 3 + 1;
  const pad = (value: number) => String(value).padStart(2, '0');
  const end = quarter === 4 ? `${year + 1}-01-01T00:00:00.000Z` : `${year}-${pad(month + 3)}-01T00:00:00.000Z`;
  return { start: `${year}-${pad(month)}-01T00:00:00.000Z`, end };
}

export function inDomains(record: Pick<ComplianceRecord, 'domain'>, domains: readonly string[]): boolean {
  if (domains.length === 0) return true;
  return record.domain !== null && domains.some((domain) => domain.toLowerCase() === record.domain!.toLowerCase());
}

/**
 * Tallies one page of a period's records (already filtered to the report's domains). At most
 * `maxViolations` violations are listed; every one is counted.
 */
export function tallyRecords(records: readonly ComplianceRecord[], maxViolations: number): ComplianceTally {
  const tally = emptyTally();
  const fail: Fail = (check_id, record, detail) => {
    tally.failures[check_id] += 1;
    if (tally.violations.length < maxViolations)
      tally.violations.push({
        check_id,
        transaction_id: record.transaction_id,
        subject_id: record.entry.subject_id,
        detail,
      });
  };
  for (const record of records) tallyRecord(tally, record, fail);
  return tally;
}

export function mergeTallies(a: ComplianceTally, b: ComplianceTally, maxViolations: number): ComplianceTally {
  const task_types = a.task_types.map((count) => ({ ...count }));
  for (const count of b.task_types) countTaskType(task_types, count.task_type, count);
  const counts = Object.fromEntries(TALLY_COUNTS.map((name) => [name, a[name] + b[name]])) as TallyCounts;
  const failures = { ...a.failures };
  for (const id of CHECK_IDS) failures[id] += b.failures[id];
  return { ...counts, failures, task_types, violations: [...a.violations, ...b.violations].slice(0, maxViolations) };
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** The report of a period from the tally of its records. */
export function buildComplianceReport(input: {
  report_id: string;
  request: ComplianceRequest;
  range: { start: string; end: string };
  tally: ComplianceTally;
  generated_at: string;
  ledger: LedgerSnapshot | null;
  report_url: string;
}): ComplianceReport {
  const { tally, request } = input;
  const escalationRate = tally.total_decisions === 0 ? 0 : tally.escalated_decisions / tally.total_decisions;
  const checks = CHECK_IDS.map((check_id) => ({
    check_id,
    description: COMPLIANCE_CHECKS[check_id].description,
    frameworks: COMPLIANCE_CHECKS[check_id].frameworks,
    passed: tally.failures[check_id] === 0,
    failures: tally.failures[check_id],
  }));
  const compliant = (framework: Framework) =>
    checks
      .filter((check) => (check.frameworks as readonly string[]).includes(framework))
      .every((check) => check.passed);
  return {
    report_id: input.report_id,
    report_type: request.report_type,
    period: request.period,
    period_start: input.range.start,
    period_end: input.range.end,
    domains: request.domains,
    generated_at: input.generated_at,
    summary: {
      total_decisions: tally.total_decisions,
      human_oversight_decisions: tally.escalated_decisions + tally.hybrid_decisions,
      ai_autonomous_decisions: tally.ai_autonomous_decisions,
      safety_violations: tally.safety_violations,
      ethical_flags: tally.ethical_flags,
      escalations_triggered: tally.escalations_triggered,
      escalation_rate: round(escalationRate),
    },
    compliance_status: {
      hipaa_compliant: compliant('hipaa'),
      gdpr_compliant: compliant('gdpr'),
      sox_compliant: compliant('sox'),
      rule_of_threes_adherence: round(
        tally.ethical_evaluations === 0 ? 1 : 1 - tally.ethical_flags / tally.ethical_evaluations,
      ),
    },
    checks,
    recommendations: recommendationsFor(tally, escalationRate, request),
    records_examined: tally.records,
    ledger: input.ledger,
    ...(request.include_violations ? { violations: tally.violations, violations_listed: tally.violations.length } : {}),
    report_url: input.report_url,
  };
}
