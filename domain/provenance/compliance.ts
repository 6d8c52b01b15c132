/**
 * Compliance reports, computed from a period's provenance records: the spec's summary counts, the checks
 * behind the HIPAA, GDPR and SOX flags, the Rule of Threes adherence and recommendations drawn from the
 * data. Records are tallied one page at a time (tallyRecords) and the tallies added up (mergeTallies), so
 * a workflow can cover a period of any size; buildComplianceReport turns the total into the report.
 */
import { countTaskType, tallyRecord, type Fail } from './compliance-record-tally';
import { recommendationsFor } from './compliance-recommendations';
import type { ProvenanceEntry } from './records';

export { personalDataIn } from './personal-data';

export const COMPLIANCE_CHECKS = {
  human_oversight_high_risk: {
    description: 'Every decision of high or critical risk went to a human (escalated or hybrid), never to the AI alone',
    frameworks: ['hipaa', 'gdpr'],
  },
  personal_data_minimised: {
    description:
      'No provenance record holds an e-mail address, a phone number, a US social security number or a payment card number: people and agents are named by DIDs and agent ids',
    frameworks: ['hipaa', 'gdpr'],
  },
  records_sealed: {
    description:
      'Every record of the period is sealed into a signed ledger checkpoint and its stored body still hashes to its leaf',
    frameworks: ['hipaa', 'sox'],
  },
  escalations_concluded: {
    description: 'No escalation ran out of reviewers without a human resolving it',
    frameworks: ['sox'],
  },
  human_decisions_attributed: {
    description: 'Every step taken by a human names that human by DID',
    frameworks: ['sox'],
  },
} as const;

export type ComplianceCheckId = keyof typeof COMPLIANCE_CHECKS;
const CHECK_IDS = Object.keys(COMPLIANCE_CHECKS) as ComplianceCheckId[];
export type Framework = 'hipaa' | 'gdpr' | 'sox';

export interface ComplianceRecord {
  transaction_id: string;
  entry: ProvenanceEntry;
  /** The domain the record belongs to: its routing's context.domain, else its task type. */
  domain: string | null;
  task_type: string | null;
  /** Sealed into a signed checkpoint. */
  sealed: boolean;
  /** Its stored body hashes to its stored leaf hash. */
  hash_matches: boolean;
}

export interface Violation {
  check_id: ComplianceCheckId;
  transaction_id: string;
  subject_id: string;
  detail: string;
}

export interface TaskTypeCount {
  task_type: string;
  decisions: number;
  escalated: number;
}

/** The counts a tally adds up, in the order the tally lists them. */
const TALLY_COUNTS = [
  'records',
  'total_decisions',
  'ai_autonomous_decisions',
  'escalated_decisions',
  'hybrid_decisions',
  'escalations_triggered',
  'safety_violations',
  'ethical_evaluations',
  'ethical_flags',
] as const;
type TallyCounts = Record<(typeof TALLY_COUNTS)[number], number>;

export interface ComplianceTally extends TallyCounts {
  failures: Record<ComplianceCheckId, number>;
  /** Decisions and those escalated to a human, per task type, for recommendations. */
  task_types: TaskTypeCount[];
  violations: Violation[];
}

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

export interface ComplianceRequest {
  report_type: string;
  period: string;
  domains: string[];
  include_violations: boolean;
}

export interface LedgerSnapshot {
  block_number: number;
  tree_size: number;
  root_hash: string;
  checkpoint: string;
}

export interface ComplianceReport {
  report_id: string;
  report_type: string;
  period: string;
  period_start: string;
  period_end: string;
  domains: string[];
  generated_at: string;
  summary: {
    total_decisions: number;
    human_oversight_decisions: number;
    ai_autonomous_decisions: number;
    safety_violations: number;
    ethical_flags: number;
    escalations_triggered: number;
    escalation_rate: number;
  };
  compliance_status: {
    hipaa_compliant: boolean;
    gdpr_compliant: boolean;
    sox_compliant: boolean;
    rule_of_threes_adherence: number;
  };
  checks: Array<{
    check_id: ComplianceCheckId;
    description: string;
    frameworks: readonly Framework[];
    passed: boolean;
    failures: number;
  }>;
  recommendations: string[];
  records_examined: number;
  /** The signed checkpoint the report was computed against: verify the period's records against it. */
  ledger: LedgerSnapshot | null;
  violations?: Violation[];
  violations_listed?: number;
  report_url: string;
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
