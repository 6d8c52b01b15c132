import {
  buildComplianceReport,
  emptyTally,
  inDomains,
  mergeTallies,
  personalDataIn,
  quarterRange,
  tallyRecords,
  type ComplianceRecord,
  type ComplianceRequest,
} from '../../../domain/provenance/compliance';
import type { ProvenanceEntry } from '../../../domain/provenance/records';

let counter = 0;
function record(entry: Partial<ProvenanceEntry>, extra: Partial<ComplianceRecord> = {}): ComplianceRecord {
  counter += 1;
  return {
    transaction_id: `tx-${counter}`,
    entry: {
      subject_id: `rt_${counter}`,
      step_id: 'routing_decision',
      timestamp: '2026-08-01T00:00:00.000Z',
      actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
      action: 'routing_decided',
      input_data: {},
      output_data: {},
      reasoning: 'r',
      ...entry,
    },
    domain: 'healthcare',
    task_type: 'diagnosis',
    sealed: true,
    hash_matches: true,
    ...extra,
  };
}

const decision = (kind: string, risk = 'low', constraintsMet = true) =>
  record({
    output_data: {
      decision: kind,
      risk: { level: risk, factors: [] },
      safety_analysis: { risk_level: risk, all_constraints_met: constraintsMet },
    },
  });

const request: ComplianceRequest = {
  report_type: 'regulatory',
  period: '2026-Q3',
  domains: [],
  include_violations: true,
};
const report = (records: ComplianceRecord[]) =>
  buildComplianceReport({
    report_id: 'rpt_1',
    request,
    range: quarterRange('2026-Q3')!,
    tally: tallyRecords(records, 100),
    generated_at: '2026-10-01T00:00:00.000Z',
    ledger: null,
    report_url: 'https://handoff.example/v1/orch/compliance/reports/rpt_1',
  });

describe('quarterRange', () => {
  it.each([
    ['2026-Q1', { start: '2026-01-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' }],
    ['2026-Q3', { start: '2026-07-01T00:00:00.000Z', end: '2026-10-01T00:00:00.000Z' }],
    ['2026-Q4', { start: '2026-10-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' }],
    ['2026-Q5', undefined],
    ['2026-3', undefined],
    ['Q3-2026', undefined],
  ])('reads %s', (period, range) => {
    expect(quarterRange(period)).toEqual(range);
  });
});

describe('personal data in provenance', () => {
  it.each([
    ['{"email":"jane.doe@example.com"}', ['an e-mail address']],
    ['{"ssn":"123-45-6789"}', ['a US social security number']],
    ['{"phone":"+1 415 555 0100"}', ['a phone number']],
    ['{"phone":"(415) 555-0100"}', ['a phone number']],
    ['{"card":"4111 1111 1111 1111"}', ['a payment card number']],
    ['{"card":"4111111111111111"}', ['a payment card number']],
    // Not personal data: DIDs, agent URNs, millisecond timestamps, digits failing Luhn, ISO dates.
    ['{"did":"did:web:handoff.local:reviewers:ada","agent":"urn:acme:agent:diagnosis:7"}', []],
    ['{"at":1732123456789,"amount":125000}', []],
    ['{"ref":"4111111111111112"}', []],
    ['{"timestamp":"2026-08-01T00:00:00.000Z"}', []],
  ])('finds in %s: %j', (text, kinds) => {
    expect(personalDataIn(text)).toEqual(kinds);
  });
});

describe('tallying a period’s records', () => {
  it('counts decisions by kind, escalations, boundaries crossed and Rule of Threes flags', () => {
    const tally = tallyRecords(
      [
        decision('ai_autonomous'),
        decision('escalate_to_human', 'medium', false),
        decision('hybrid_collaboration', 'high', true),
        record({ action: 'escalated', step_id: 'escalation:2', output_data: { to_did: 'did:x:b' } }),
        record({
          action: 'safety_checked',
          output_data: {
            allowed: false,
            rule_of_threes_analysis: { good_for_human: true, good_for_humanity: 'uncertain', good_for_svc: true },
          },
        }),
      ],
      10,
    );
    expect(tally).toMatchObject({
      records: 5,
      total_decisions: 3,
      ai_autonomous_decisions: 1,
      escalated_decisions: 1,
      hybrid_decisions: 1,
      escalations_triggered: 3,
      safety_violations: 2,
      ethical_evaluations: 4,
      ethical_flags: 1,
      task_types: [{ task_type: 'diagnosis', decisions: 3, escalated: 1 }],
    });
  });

  it.each([
    ['a high-risk decision the AI took alone', decision('ai_autonomous', 'high'), 'human_oversight_high_risk'],
    ['a critical one', decision('ai_autonomous', 'critical'), 'human_oversight_high_risk'],
    [
      'an e-mail address in a record',
      record({ input_data: { contact: 'jane@example.com' } }),
      'personal_data_minimised',
    ],
    ['an unsealed record', record({}, { sealed: false }), 'records_sealed'],
    ['a record edited after sealing', record({}, { hash_matches: false }), 'records_sealed'],
    ['an expired escalation', record({ action: 'routing_expired', step_id: 'expiry' }), 'escalations_concluded'],
    [
      'a human step with no DID',
      record({ action: 'routing_resolved', actor: { type: 'human' } }),
      'human_decisions_attributed',
    ],
  ])('fails a check for %s', (_name, failing, check) => {
    const tally = tallyRecords([failing], 10);
    expect(tally.failures).toMatchObject({ [check]: 1 });
    expect(Object.values(tally.failures).reduce((sum, n) => sum + n, 0)).toBe(1);
    expect(tally.violations).toEqual([
      expect.objectContaining({ check_id: check, transaction_id: failing.transaction_id }),
    ]);
  });

  it('adds up page tallies to the tally of the whole period', () => {
    const records = [
      decision('ai_autonomous'),
      decision('escalate_to_human'),
      record({ action: 'routing_expired' }),
      decision('ai_autonomous', 'high'),
      record({ input_data: { e: 'a@b.co' } }),
    ];
    const pages = [records.slice(0, 2), records.slice(2, 3), records.slice(3)].map((page) => tallyRecords(page, 2));
    const merged = pages.reduce((sum, page) => mergeTallies(sum, page, 2), emptyTally());
    expect(merged).toEqual({ ...tallyRecords(records, 2) });
  });

  it.each([
    [[], { domain: 'healthcare' }, true],
    [['Healthcare'], { domain: 'healthcare' }, true],
    [['finance'], { domain: 'healthcare' }, false],
    [['finance'], { domain: null }, false],
  ])('keeps a record for domains %j when its domain is %j: %s', (domains, recordDomain, kept) => {
    expect(inDomains(recordDomain, domains)).toBe(kept);
  });
});

describe('the report', () => {
  it('gives the spec’s summary and a clean bill when every check passes', () => {
    const built = report([
      decision('ai_autonomous'),
      decision('escalate_to_human'),
      decision('escalate_to_human'),
      decision('hybrid_collaboration', 'high'),
    ]);
    expect(built.summary).toEqual({
      total_decisions: 4,
      human_oversight_decisions: 3,
      ai_autonomous_decisions: 1,
      safety_violations: 0,
      ethical_flags: 0,
      escalations_triggered: 3,
      escalation_rate: 0.5,
    });
    expect(built.compliance_status).toEqual({
      hipaa_compliant: true,
      gdpr_compliant: true,
      sox_compliant: true,
      rule_of_threes_adherence: 1,
    });
    expect(built.recommendations).toEqual([expect.stringContaining('Every check passed')]);
    expect(built).toMatchObject({
      period_start: '2026-07-01T00:00:00.000Z',
      period_end: '2026-10-01T00:00:00.000Z',
      violations: [],
    });
  });

  it.each([
    [
      'oversight',
      [decision('ai_autonomous', 'critical')],
      { hipaa_compliant: false, gdpr_compliant: false, sox_compliant: true },
      /left to the AI alone/,
    ],
    [
      'personal data',
      [record({ input_data: { ssn: '123-45-6789' } })],
      { hipaa_compliant: false, gdpr_compliant: false, sox_compliant: true },
      /hold personal data/,
    ],
    [
      'sealing',
      [record({}, { sealed: false })],
      { hipaa_compliant: false, gdpr_compliant: true, sox_compliant: false },
      /ledger sealer/,
    ],
    [
      'expiry',
      [record({ action: 'routing_expired' })],
      { hipaa_compliant: true, gdpr_compliant: true, sox_compliant: false },
      /ran out of reviewers/,
    ],
  ])('derives the flags from the checks when %s fails, with a recommendation', (_name, records, flags, advice) => {
    const built = report(records);
    expect(built.compliance_status).toMatchObject(flags);
    expect(built.recommendations.some((line) => advice.test(line))).toBe(true);
  });

  it('names the task types that escalate most when most decisions go to a human', () => {
    const many = [
      ...Array.from({ length: 8 }, () => ({ ...decision('escalate_to_human'), task_type: 'radiology' })),
      ...Array.from({ length: 4 }, () => ({ ...decision('ai_autonomous'), task_type: 'billing' })),
    ];
    const built = report(many);
    expect(built.summary.escalation_rate).toBe(0.6667);
    expect(built.recommendations[0]).toMatch(
      /66\.7% of decisions went to a human; most often for radiology \(100% of 8\), billing \(0% of 4\)/,
    );
  });

  it('measures Rule of Threes adherence over the records that were judged', () => {
    const flagged = record({
      action: 'safety_checked',
      output_data: { rule_of_threes_analysis: { good_for_human: false, good_for_humanity: true, good_for_svc: true } },
    });
    expect(
      report([decision('ai_autonomous'), decision('ai_autonomous'), decision('ai_autonomous'), flagged])
        .compliance_status.rule_of_threes_adherence,
    ).toBe(0.75);
  });

  it('lists violations only when asked', () => {
    const built = buildComplianceReport({
      report_id: 'r',
      request: { ...request, include_violations: false },
      range: quarterRange('2026-Q3')!,
      tally: tallyRecords([record({}, { sealed: false })], 10),
      generated_at: '2026-10-01T00:00:00.000Z',
      ledger: null,
      report_url: 'u',
    });
    expect(built).not.toHaveProperty('violations');
    expect(built.checks.find((check) => check.check_id === 'records_sealed')).toMatchObject({
      passed: false,
      failures: 1,
    });
  });
});
