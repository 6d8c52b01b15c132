/**
 * The shapes of a compliance report and of what it is computed from: the records of a period, the tally
 * they add up to, and the request. The tally, the recommendations and the report builder all read them.
 */
import type { ComplianceCheckId, Framework } from './compliance-checks';
import type { ProvenanceEntry } from './records';

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
export const TALLY_COUNTS = [
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
export type TallyCounts = Record<(typeof TALLY_COUNTS)[number], number>;

export interface ComplianceTally extends TallyCounts {
  failures: Record<ComplianceCheckId, number>;
  /** Decisions and those escalated to a human, per task type, for recommendations. */
  task_types: TaskTypeCount[];
  violations: Violation[];
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
