import { appendProvenanceBatch } from '../../db/ledger';
import { ledgerSealingLag } from '../../db/ledger-blocks';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { client, expectProblem, type CallResult } from '../support/http';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

/** Records of 2026-Q3 the way routings write them, with the routing's task type in its input. */
let n = 0;
function decided(
  task_type: string,
  decision: string,
  risk: string,
  extra: Partial<ProvenanceEntry> = {},
): { entry: ProvenanceEntry } {
  n += 1;
  return {
    entry: {
      subject_id: `rt_q3-${n}`,
      step_id: 'routing_decision',
      timestamp: `2026-08-${String((n % 28) + 1).padStart(2, '0')}T10:00:00.000Z`,
      actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
      action: 'routing_decided',
      input_data: { task_type, ai_confidence: decision === 'ai_autonomous' ? 0.9 : 0.5 },
      output_data: {
        decision,
        reason: 'r',
        risk: { level: risk, factors: [] },
        safety_analysis: { risk_level: risk, all_constraints_met: decision === 'ai_autonomous' },
      },
      reasoning: `Decided ${decision}`,
      ...extra,
    },
  };
}

async function sealed() {
  while ((await ledgerSealingLag(stack.database.db)).unsealed_leaves > 0)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['orch:admin']));
  await appendProvenanceBatch(stack.database.db, [
    decided('healthcare', 'escalate_to_human', 'medium'),
    decided('healthcare', 'escalate_to_human', 'medium'),
    decided('healthcare', 'ai_autonomous', 'low'),
    // A critical decision left to the AI alone, with a patient's e-mail in its input: fails oversight and minimisation.
    decided('healthcare', 'ai_autonomous', 'critical', {
      subject_id: 'rt_<b>q3-bad</b>',
      input_data: { task_type: 'healthcare', patient_email: 'jane.doe@example.com' },
    }),
    decided('finance', 'hybrid_collaboration', 'high'),
    decided('finance', 'escalate_to_human', 'low'),
    {
      entry: {
        subject_id: 'rt_q3-1',
        step_id: 'expiry',
        timestamp: '2026-08-30T10:00:00.000Z',
        actor: { type: 'orch_core' },
        action: 'routing_expired',
        input_data: { task_type: 'healthcare' },
        output_data: { status: 'expired' },
        reasoning: 'nobody answered',
      },
    },
  ]);
  await sealed();
});

describe('POST /v1/orch/compliance/report', () => {
  let created: CallResult;
  beforeAll(async () => {
    created = await admin('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'quarterly_regulatory', period: '2026-Q3', domains: [], include_violations: true },
    });
  });

  it('computes every summary count of the period from its records', () => {
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      report_id: expect.stringMatching(/^rpt_/),
      report_type: 'quarterly_regulatory',
      period: '2026-Q3',
      period_start: '2026-07-01T00:00:00.000Z',
      period_end: '2026-10-01T00:00:00.000Z',
      records_examined: 7,
      summary: {
        total_decisions: 6,
        human_oversight_decisions: 4,
        ai_autonomous_decisions: 2,
        safety_violations: 4,
        ethical_flags: 0,
        escalations_triggered: 4,
        escalation_rate: 0.5,
      },
    });
    expect(created.headers.get('location')).toBe(created.body.report_url);
  });

  it('derives HIPAA, GDPR and SOX from the checks, lists what failed, and recommends from the data', () => {
    expect(created.body.compliance_status).toEqual({
      hipaa_compliant: false,
      gdpr_compliant: false,
      sox_compliant: false,
      rule_of_threes_adherence: 1,
    });
    const failed = created.body.checks
      .filter((check: { passed: boolean }) => !check.passed)
      .map((check: { check_id: string; failures: number }) => [check.check_id, check.failures]);
    expect(failed).toEqual([
      ['human_oversight_high_risk', 1],
      ['personal_data_minimised', 1],
      ['escalations_concluded', 1],
    ]);
    expect(created.body.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check_id: 'personal_data_minimised',
          subject_id: 'rt_<b>q3-bad</b>',
          detail: 'the record holds an e-mail address',
        }),
      ]),
    );
    expect(created.body.recommendations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/left to the AI alone/),
        expect.stringMatching(/hold personal data/),
        expect.stringMatching(/ran out of reviewers/),
      ]),
    );
    expect(created.body.ledger).toMatchObject({
      tree_size: expect.any(Number),
      checkpoint: expect.stringContaining('\n\n— '),
    });
  });

  it('serves the stored report at report_url as JSON and as an HTML page with every value escaped', async () => {
    const path = new URL(created.body.report_url).pathname;
    expect((await admin('GET', path)).body).toEqual(created.body);
    const page = await admin('GET', path, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<h1>Compliance report: 2026-Q3</h1>');
    expect(page.text).toContain('rt_&lt;b&gt;q3-bad&lt;/b&gt;');
    expect(page.text).not.toContain('<b>q3-bad</b>');
    expect((await admin('GET', `${path}?format=html`)).text).toBe(page.text);
  });

  it('keeps to the domains asked for', async () => {
    const finance = await admin('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'quarterly_regulatory', period: '2026-Q3', domains: ['finance'] },
    });
    expect(finance.body.summary).toMatchObject({
      total_decisions: 2,
      human_oversight_decisions: 2,
      ai_autonomous_decisions: 0,
      escalation_rate: 0.5,
    });
    expect(finance.body.compliance_status).toMatchObject({
      hipaa_compliant: true,
      gdpr_compliant: true,
      sox_compliant: true,
    });
    expect(finance.body).not.toHaveProperty('violations');
  });

  it('reports the current quarter’s routings as they happened', async () => {
    const routing = client(stack.baseUrl, await stack.token(['orch:write']));
    const task = {
      task_type: 'compliance_live',
      ai_agent_id: 'urn:acme:agent:x:1',
      context: { domain: 'live-domain' },
    };
    await routing('POST', '/v1/orch/routing', { json: { ...task, ai_confidence: 0.95 } });
    await routing('POST', '/v1/orch/routing', {
      json: {
        ...task,
        ai_confidence: 0.4,
        required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
      },
    });
    await sealed();
    const now = new Date();
    const period = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
    const live = await admin('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'spot_check', period, domains: ['live-domain'] },
    });
    expect(live.body.summary).toMatchObject({
      total_decisions: 2,
      ai_autonomous_decisions: 1,
      human_oversight_decisions: 1,
      escalations_triggered: 1,
      escalation_rate: 0.5,
    });
    expect(live.body.compliance_status).toEqual({
      hipaa_compliant: true,
      gdpr_compliant: true,
      sox_compliant: true,
      rule_of_threes_adherence: 1,
    });
  });

  it('finds a record edited after sealing', async () => {
    const victim = decided('tamper', 'escalate_to_human', 'low', { timestamp: '2026-09-15T00:00:00.000Z' });
    const [anchor] = await appendProvenanceBatch(stack.database.db, [victim]);
    await sealed();
    await stack.database.db.transaction(async (trx) => {
      await trx.raw('alter table ledger_entries disable trigger user');
      await trx('ledger_entries')
        .where({ transaction_id: anchor!.transaction_id })
        .update({ body: trx.raw(`replace(body, 'escalate_to_human', 'ai_autonomous')`) });
      await trx.raw('alter table ledger_entries enable trigger user');
    });
    const report = await admin('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'integrity', period: '2026-Q3', domains: ['tamper'], include_violations: true },
    });
    expect(report.body.violations).toEqual([
      expect.objectContaining({
        check_id: 'records_sealed',
        transaction_id: anchor!.transaction_id,
        detail: expect.stringContaining('changed after sealing'),
      }),
    ]);
    expect(report.body.compliance_status).toMatchObject({ sox_compliant: false, hipaa_compliant: false });
  });

  it('answers 202 at once when asked to, and serves the report once a worker has generated it', async () => {
    await stack.stopWorker();
    const accepted = await admin('POST', '/v1/orch/compliance/report', {
      json: { report_type: 'async', period: '2026-Q3' },
      headers: { prefer: 'respond-async', 'idempotency-key': 'report-async-1' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: 'generating',
      report_id: expect.stringMatching(/^rpt_/),
      retry_after_seconds: 2,
    });
    expect(accepted.headers.get('retry-after')).toBe('2');
    const path = new URL(accepted.body.report_url).pathname;
    expect((await admin('GET', path)).status).toBe(202);

    await stack.startWorker();
    let ready: CallResult = accepted;
    for (let attempt = 0; attempt < 100 && ready.status !== 200; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ready = await admin('GET', path);
    }
    expect(ready.body).toMatchObject({
      report_id: accepted.body.report_id,
      period: '2026-Q3',
      summary: { total_decisions: 7 },
    });
  });

  it.each([
    ['a period that is not a quarter', { report_type: 'x', period: '2026-13' }, 'period'],
    ['an unknown field', { report_type: 'x', period: '2026-Q3', colour: 'red' }, ''],
    ['no report type', { period: '2026-Q3' }, 'report_type'],
  ])('rejects %s', async (_name, body, field) => {
    const reply = await admin('POST', '/v1/orch/compliance/report', { json: body });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field })]);
  });

  it('needs the admin token, and is 404 for a report that never existed', async () => {
    const writer = client(stack.baseUrl, await stack.token(['orch:write', 'orch:read']));
    expectProblem(
      await writer('POST', '/v1/orch/compliance/report', { json: { report_type: 'x', period: '2026-Q3' } }),
      403,
      'insufficient_scope',
    );
    expectProblem(
      await admin('GET', `/v1/orch/compliance/reports/rpt_${'0'.repeat(32)}`),
      404,
      'compliance_report_not_found',
    );
  });
});
