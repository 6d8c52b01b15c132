/**
 * Compliance reports, computed from a period's provenance records: the spec's summary counts, the checks
 * behind the HIPAA, GDPR and SOX flags, the Rule of Threes adherence and recommendations drawn from the
 * data. Records are tallied one page at a time (tallyRecords) and the tallies added up (mergeTallies), so
 * a workflow can cover a period of any size; buildComplianceReport turns the total into the report.
 */
import type { ProvenanceEntry } from './records';

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

/** Adds counts to a task type's entry (a list, not an object keyed by caller-supplied names). */
function countTaskType(
  counts: TaskTypeCount[],
  task_type: string,
  add: { decisions: number; escalated: number },
): void {
  const found = counts.find((count) => count.task_type === task_type);
  if (found) {
    found.decisions += add.decisions;
    found.escalated += add.escalated;
  } else counts.push({ task_type, ...add });
}

export interface ComplianceTally {
  records: number;
  total_decisions: number;
  ai_autonomous_decisions: number;
  escalated_decisions: number;
  hybrid_decisions: number;
  escalations_triggered: number;
  safety_violations: number;
  ethical_evaluations: number;
  ethical_flags: number;
  failures: Record<ComplianceCheckId, number>;
  /** Decisions and those escalated to a human, per task type, for recommendations. */
  task_types: TaskTypeCount[];
  violations: Violation[];
}

export function emptyTally(): ComplianceTally {
  return {
    records: 0,
    total_decisions: 0,
    ai_autonomous_decisions: 0,
    escalated_decisions: 0,
    hybrid_decisions: 0,
    escalations_triggered: 0,
    safety_violations: 0,
    ethical_evaluations: 0,
    ethical_flags: 0,
    failures: {
      human_oversight_high_risk: 0,
      personal_data_minimised: 0,
      records_sealed: 0,
      escalations_concluded: 0,
      human_decisions_attributed: 0,
    },
    task_types: [],
    violations: [],
  };
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

const object = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const DECISIONS = ['ai_autonomous', 'escalate_to_human', 'hybrid_collaboration'];

/** Digits that pass the Luhn check (payment card numbers do). */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const PERSONAL_DATA: Array<{ kind: string; find: (text: string) => boolean }> = [
  {
    kind: 'an e-mail address',
    find: (text) => /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/.test(text),
  },
  { kind: 'a US social security number', find: (text) => /(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])/.test(text) },
  {
    kind: 'a phone number',
    find: (text) =>
      /(?<![\w+])\+\d{1,3}[ -]?\d{3,4}[ -]?\d{3,4}[ -]?\d{0,4}(?!\d)/.test(text) || /\(\d{3}\) ?\d{3}-\d{4}/.test(text),
  },
  {
    kind: 'a payment card number',
    // 15 or 16 digits, grouped or not, that pass Luhn: millisecond timestamps (13 digits) do not match.
    find: (text) =>
      [...text.matchAll(/(?<!\d)(?:\d{4}[ -]?){3}\d{3,4}(?!\d)/g)].some(
        (match) => /^[3-6]/.test(match[0]) && luhn(match[0].replace(/[ -]/g, '')),
      ),
  },
];

/** The kinds of personal data a record's text holds, if any. */
export function personalDataIn(text: string): string[] {
  return PERSONAL_DATA.filter((pattern) => pattern.find(text)).map((pattern) => pattern.kind);
}

/** A Rule of Threes judgement in a record: any "good for" that is not a plain yes is a flag. */
function ethicalJudgement(entry: ProvenanceEntry): 'flagged' | 'clear' | undefined {
  const analysis = object(entry.output_data.rule_of_threes_analysis);
  const ethicalRules = (entry.rules_evaluated ?? []).filter(
    (rule) => rule.rule_id === 'rule_of_threes' || rule.rule_id.startsWith('ethic'),
  );
  if (!analysis && ethicalRules.length === 0) return undefined;
  const doubtful = analysis
    ? ['good_for_human', 'good_for_humanity', 'good_for_svc'].some((key) => key in analysis && analysis[key] !== true)
    : false;
  return doubtful || ethicalRules.some((rule) => rule.triggered) ? 'flagged' : 'clear';
}

function violation(check_id: ComplianceCheckId, record: ComplianceRecord, detail: string): Violation {
  return { check_id, transaction_id: record.transaction_id, subject_id: record.entry.subject_id, detail };
}

/**
 * Tallies one page of a period's records (already filtered to the report's domains). At most
 * `maxViolations` violations are listed; every one is counted.
 */
export function tallyRecords(records: readonly ComplianceRecord[], maxViolations: number): ComplianceTally {
  const tally = emptyTally();
  const fail = (found: Violation) => {
    tally.failures[found.check_id] += 1;
    if (tally.violations.length < maxViolations) tally.violations.push(found);
  };
  for (const record of records) {
    const { entry } = record;
    const output = entry.output_data;
    tally.records += 1;

    const decision =
      typeof output.decision === 'string' && DECISIONS.includes(output.decision) ? output.decision : undefined;
    if (decision) {
      tally.total_decisions += 1;
      countTaskType(tally.task_types, record.task_type ?? 'unspecified', {
        decisions: 1,
        escalated: decision === 'escalate_to_human' ? 1 : 0,
      });
      if (decision === 'ai_autonomous') tally.ai_autonomous_decisions += 1;
      if (decision === 'hybrid_collaboration') tally.hybrid_decisions += 1;
      if (decision === 'escalate_to_human') tally.escalated_decisions += 1;
      if (decision !== 'ai_autonomous') tally.escalations_triggered += 1;
      const risk = object(output.risk)?.level ?? object(output.safety_analysis)?.risk_level;
      if ((risk === 'high' || risk === 'critical') && decision === 'ai_autonomous') {
        fail(violation('human_oversight_high_risk', record, `a ${risk}-risk decision was left to the AI alone`));
      }
    } else if (/^escalat|_escalated$/.test(entry.action)) {
      tally.escalations_triggered += 1;
    }

    const boundaries = object(output.safety_analysis);
    const reported = Array.isArray(output.violations) ? output.violations.length : 0;
    if (boundaries?.all_constraints_met === false || reported > 0 || output.allowed === false)
      tally.safety_violations += 1;

    const judgement = ethicalJudgement(entry) ?? (decision ? 'clear' : undefined);
    if (judgement) tally.ethical_evaluations += 1;
    if (judgement === 'flagged') tally.ethical_flags += 1;

    const found = personalDataIn(JSON.stringify(entry));
    if (found.length > 0) fail(violation('personal_data_minimised', record, `the record holds ${found.join(', ')}`));
    if (!record.sealed)
      fail(violation('records_sealed', record, 'the record is not sealed into a signed checkpoint yet'));
    else if (!record.hash_matches)
      fail(
        violation(
          'records_sealed',
          record,
          'the stored body no longer hashes to its leaf: it was changed after sealing',
        ),
      );
    if (entry.action === 'routing_expired')
      fail(
        violation('escalations_concluded', record, 'the escalation chain ran out with no human resolving the routing'),
      );
    if (entry.actor.type === 'human' && !entry.actor.did)
      fail(violation('human_decisions_attributed', record, 'a human step names no DID'));
  }
  return tally;
}

export function mergeTallies(a: ComplianceTally, b: ComplianceTally, maxViolations: number): ComplianceTally {
  const task_types = a.task_types.map((count) => ({ ...count }));
  for (const count of b.task_types) countTaskType(task_types, count.task_type, count);
  const failures = { ...a.failures };
  for (const id of Object.keys(failures) as ComplianceCheckId[]) failures[id] += b.failures[id];
  return {
    records: a.records + b.records,
    total_decisions: a.total_decisions + b.total_decisions,
    ai_autonomous_decisions: a.ai_autonomous_decisions + b.ai_autonomous_decisions,
    escalated_decisions: a.escalated_decisions + b.escalated_decisions,
    hybrid_decisions: a.hybrid_decisions + b.hybrid_decisions,
    escalations_triggered: a.escalations_triggered + b.escalations_triggered,
    safety_violations: a.safety_violations + b.safety_violations,
    ethical_evaluations: a.ethical_evaluations + b.ethical_evaluations,
    ethical_flags: a.ethical_flags + b.ethical_flags,
    failures,
    task_types,
    violations: [...a.violations, ...b.violations].slice(0, maxViolations),
  };
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
const percent = (value: number) => `${Math.round(value * 1000) / 10}%`;

function recommendationsFor(tally: ComplianceTally, escalationRate: number, request: ComplianceRequest): string[] {
  const advice: string[] = [];
  if (tally.total_decisions === 0) {
    advice.push(
      `No routing decisions fall in ${request.period}${request.domains.length > 0 ? ` for ${request.domains.join(', ')}` : ''}: check the period and the domains.`,
    );
  }
  if (tally.total_decisions >= 10 && escalationRate > 0.5) {
    const worst = tally.task_types
      .filter((count) => count.decisions >= 3)
      .sort((x, y) => y.escalated / y.decisions - x.escalated / x.decisions)
      .slice(0, 3)
      .map((count) => `${count.task_type} (${percent(count.escalated / count.decisions)} of ${count.decisions})`);
    advice.push(
      `${percent(escalationRate)} of decisions went to a human${worst.length > 0 ? `; most often for ${worst.join(', ')}` : ''}: review those agents' confidence calibration and capabilities, or staff reviewers for them.`,
    );
  }
  const failures = tally.failures;
  if (failures.human_oversight_high_risk > 0) {
    advice.push(
      `${failures.human_oversight_high_risk} high- or critical-risk decisions were left to the AI alone: add an escalation rule (risk_level >= high) or set human_oversight_required for those tasks.`,
    );
  }
  if (failures.personal_data_minimised > 0) {
    advice.push(
      `${failures.personal_data_minimised} provenance records hold personal data: have agents send DIDs or pseudonymous ids instead of contact details and identifiers. The ledger is append-only, so what was recorded stays; stop it at the source.`,
    );
  }
  if (failures.records_sealed > 0) {
    advice.push(
      `${failures.records_sealed} records are unsealed or no longer match their leaves: check the ledger sealer (the sealing lag in health) and verify an export with npm run verify.`,
    );
  }
  if (failures.escalations_concluded > 0) {
    advice.push(
      `${failures.escalations_concluded} escalations ran out of reviewers: add reviewers higher up the chain for those capabilities or lengthen the escalation timeouts.`,
    );
  }
  if (failures.human_decisions_attributed > 0)
    advice.push(
      `${failures.human_decisions_attributed} human steps name no DID: require reviewers to resolve with their DID.`,
    );
  if (tally.ethical_flags > 0)
    advice.push(`${tally.ethical_flags} records carry a Rule of Threes flag: have a person review them.`);
  if (advice.length === 0) {
    advice.push(
      'Every check passed. Keep an export of the ledger with this report and verify it with npm run verify against the checkpoint the report names.',
    );
  }
  return advice;
}

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
  const checks = (Object.keys(COMPLIANCE_CHECKS) as ComplianceCheckId[]).map((check_id) => ({
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
