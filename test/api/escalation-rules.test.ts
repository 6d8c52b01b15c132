import { client, call, expectProblem } from '../support/http';
import { eventKinds, provenanceEntries, provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
});

const rule = (overrides: Record<string, unknown> = {}) => ({
  rule_name: 'Logistics over 5,000',
  description: 'Large shipments need a person',
  conditions: [
    { condition_type: 'domain', operator: '==', value: 'logistics' },
    { condition_type: 'amount', operator: '>=', value: 5000 },
  ],
  actions: [
    { action: 'escalate_to_human', target_capability: 'general_review', min_weight: 0.7, urgency: 'high' },
    { action: 'notify_supervisor', notification_threshold: 'medium' },
  ],
  priority: 'high',
  ...overrides,
});

const route = (body: Record<string, unknown>) =>
  admin('POST', '/v1/orch/routing', { json: { ai_agent_id: 'urn:acme:agent:ship:1', ai_confidence: 0.95, ...body } });
const stepOf = async (routingId: string, stepId: string) =>
  (await provenanceEntry(stack.database.db, routingId, stepId))!;
const eventsAt = (routingId: string, stepId: string) => eventKinds(stack.database.db, routingId, stepId);
const stepIds = async (subjectId: string) =>
  (await provenanceEntries(stack.database.db, subjectId)).map((entry) => entry.step_id);

describe('creating a rule', () => {
  it('estimates the trigger rate by replaying the stored routings, and lists the task types it applies to', async () => {
    for (const ai_confidence of [0.5, 0.6, 0.8, 0.9])
      await route({ task_type: 'rate_probe', ai_confidence, required_capabilities: ['general_review'] });
    await route({ task_type: 'other_probe', ai_confidence: 0.5, required_capabilities: ['general_review'] });
    const replayed = (
      await stack.database.db('routings').whereNotNull('risk_level').count<{ count: number }[]>({ count: '*' })
    )[0]!.count;

    const reply = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({
        rule_name: 'Unsure probes',
        conditions: [
          { condition_type: 'task_type', operator: '==', value: 'rate_probe' },
          { condition_type: 'ai_confidence', operator: '<', value: 0.7 },
        ],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'low' }],
      }),
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`/v1/orch/escalation/rules/${reply.body.rule_id}`);
    expect(reply.body).toMatchObject({
      rule_id: expect.stringMatching(/^er_/),
      rule_name: 'Unsure probes',
      status: 'active',
      applies_to: ['rate_probe'],
      estimated_trigger_rate: `${((100 * 2) / replayed).toFixed(1)}%`,
      trigger_rate_basis: { routings_replayed: replayed, routings_triggered: 2, window_days: 30 },
      findings: [],
      version: 1,
    });
    expect((await stepOf(reply.body.rule_id, 'created')).output_data).toMatchObject({
      rule: { conditions: [expect.anything(), expect.anything()] },
    });
  });

  it('accepts a risk level as notification_threshold: critical tells the supervisor once the routing reaches urgent', async () => {
    const reply = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({
        rule_name: 'Critical reactor work',
        conditions: [{ condition_type: 'task_type', operator: '==', value: 'reactor_probe' }],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'critical' }],
      }),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.actions).toEqual([{ action: 'notify_supervisor', notification_threshold: 'critical' }]);
    expect((await admin('GET', `/v1/orch/escalation/rules/${reply.body.rule_id}`)).body.actions).toEqual([
      { action: 'notify_supervisor', notification_threshold: 'critical' },
    ]);

    const high = await route({
      task_type: 'reactor_probe',
      ai_confidence: 0.5,
      context: { risk_level: 'high' },
      required_capabilities: ['general_review'],
    });
    expect(high.body.escalation_level).toBe('high');
    expect(await eventsAt(high.body.routing_id, 'routing_decision')).not.toContain('escalation.supervisor_notified');
    const urgent = await route({
      task_type: 'reactor_probe',
      ai_confidence: 0.5,
      escalation_conditions: { life_safety_flag: true },
      required_capabilities: ['general_review'],
    });
    expect(urgent.body.escalation_level).toBe('urgent');
    expect(await eventsAt(urgent.body.routing_id, 'routing_decision')).toContain('escalation.supervisor_notified');
    expectProblem(
      await admin('POST', '/v1/orch/escalation/rules', {
        json: rule({
          rule_name: 'Bad threshold',
          actions: [{ action: 'notify_supervisor', notification_threshold: 'extreme' }],
        }),
      }),
      400,
      'validation_failed',
    );
  });

  it('lists the configured task types of a domain it names', async () => {
    const reply = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({
        rule_name: 'Clinical',
        conditions: [{ condition_type: 'domain', operator: '==', value: 'healthcare' }],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'urgent' }],
      }),
    });
    expect(reply.body.applies_to).toEqual(['medical_diagnosis', 'prescription', 'treatment_recommendation']);
  });

  it('refuses contradicting conditions, unknown fields, and a non-admin', async () => {
    const contradiction = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({
        conditions: [
          { condition_type: 'amount', operator: '>', value: 10 },
          { condition_type: 'amount', operator: '<', value: 5 },
        ],
      }),
    });
    expectProblem(contradiction, 400, 'validation_failed');
    expect(contradiction.body.errors).toEqual([expect.objectContaining({ field: 'conditions', code: 'invalid_rule' })]);
    const unknown = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({ conditions: [{ condition_type: 'weather', operator: '==', value: 'rain' }] }),
    });
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ field: 'conditions.0' })]);
    const badAction = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({ actions: [{ action: 'page_everyone' }] }),
    });
    expectProblem(badAction, 400, 'validation_failed');
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/orch/escalation/rules', {
        token: await stack.token(['orch:write']),
        json: rule(),
      }),
      403,
      'insufficient_scope',
    );
  });
});

describe('rules in routing', () => {
  let ruleId: string;

  it('evaluates the rules on every routing, inside the decision, and records them in provenance', async () => {
    ruleId = (await admin('POST', '/v1/orch/escalation/rules', { json: rule() })).body.rule_id;
    const routed = await route({ task_type: 'shipment', context: { domain: 'logistics', amount: 6000 } });
    expect(routed.body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'escalation_rule_triggered',
      escalation_level: 'high',
      assigned_to: {
        type: 'human',
        capabilities_matched: [{ capability_id: 'general_review', weight: expect.any(Number) }],
      },
      provenance: { rule_triggered: ruleId },
      rules_triggered: [ruleId],
    });
    const analysis = await stepOf(routed.body.routing_id, 'context_analysis');
    expect(analysis.rules_evaluated).toEqual(
      expect.arrayContaining([
        { rule_id: ruleId, triggered: true, reason: 'domain logistics == logistics; amount 6000 >= 5000' },
      ]),
    );
    const enabled = (
      await stack.database.db('escalation_rules').where({ enabled: true }).count<{ count: number }[]>({ count: '*' })
    )[0]!.count;
    const { version } = await stack.database.db('escalation_rule_set').first();
    expect(analysis.input_data.rule_set).toEqual({
      version: Number(version),
      enabled_rules: enabled,
      rules_in_scope: 1,
    });
    expect(await eventsAt(routed.body.routing_id, 'routing_decision')).toEqual([
      'escalation.supervisor_notified',
      'escalation.triggered',
      'routing.decided',
      'routing.escalated',
    ]);

    const small = await route({ task_type: 'shipment', context: { domain: 'logistics', amount: 100 } });
    expect(small.body.decision).toBe('ai_autonomous');
    expect((await stepOf(small.body.routing_id, 'context_analysis')).rules_evaluated).toEqual(
      expect.arrayContaining([{ rule_id: ruleId, triggered: false, reason: 'amount 100 >= 5000 does not hold' }]),
    );
  });

  it('refuses a conflicting rule at creation, and with allow_conflicts the routing fails safe to a human', async () => {
    const conflicting = rule({
      rule_name: 'Logistics legal',
      conditions: [
        { condition_type: 'domain', operator: '==', value: 'logistics' },
        { condition_type: 'context.hazmat', operator: '==', value: true },
      ],
      actions: [{ action: 'escalate_to_human', target_capability: 'financial_approval', urgency: 'urgent' }],
    });
    const refused = await admin('POST', '/v1/orch/escalation/rules', { json: conflicting });
    expectProblem(refused, 409, 'rule_conflict');
    expect(refused.body.conflicts).toEqual([expect.objectContaining({ kind: 'conflict', rule_id: ruleId })]);

    const accepted = await admin('POST', '/v1/orch/escalation/rules', {
      json: { ...conflicting, allow_conflicts: true },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.findings).toEqual([expect.objectContaining({ kind: 'conflict', rule_id: ruleId })]);

    const routed = await route({
      task_type: 'shipment',
      context: { domain: 'logistics', amount: 9000, hazmat: true },
      required_capabilities: ['general_review'],
    });
    expect(routed.body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'rule_conflict',
      escalation_level: 'urgent',
      rule_conflict: {
        rule_ids: expect.arrayContaining([ruleId, accepted.body.rule_id]),
        target_capabilities: expect.arrayContaining(['general_review', 'financial_approval']),
      },
    });
    await admin('DELETE', `/v1/orch/escalation/rules/${accepted.body.rule_id}`);
  });

  it('refuses a rule fully shadowed by a higher-priority one, but stores it disabled with the finding', async () => {
    const shadowed = rule({
      rule_name: 'Big logistics',
      priority: 'low',
      conditions: [
        { condition_type: 'domain', operator: '==', value: 'logistics' },
        { condition_type: 'amount', operator: '>=', value: 50_000 },
      ],
      actions: [{ action: 'escalate_to_human', target_capability: 'general_review', urgency: 'low' }],
    });
    const refused = await admin('POST', '/v1/orch/escalation/rules', { json: shadowed });
    expectProblem(refused, 409, 'rule_conflict');
    expect(refused.body.conflicts).toEqual([expect.objectContaining({ kind: 'shadowed_by', rule_id: ruleId })]);
    const disabled = await admin('POST', '/v1/orch/escalation/rules', { json: { ...shadowed, enabled: false } });
    expect(disabled.status).toBe(201);
    expect(disabled.body).toMatchObject({
      status: 'disabled',
      findings: [expect.objectContaining({ kind: 'shadowed_by' })],
    });
    expectProblem(
      await admin('POST', `/v1/orch/escalation/rules/${disabled.body.rule_id}/enable`),
      409,
      'rule_conflict',
    );
  });

  it('stops applying a disabled rule, and applies it again once enabled', async () => {
    const disabled = await admin('POST', `/v1/orch/escalation/rules/${ruleId}/disable`);
    expect(disabled.body).toMatchObject({ status: 'disabled', enabled: false, version: 2 });
    expect((await route({ task_type: 'shipment', context: { domain: 'logistics', amount: 6000 } })).body.decision).toBe(
      'ai_autonomous',
    );
    expect((await admin('POST', `/v1/orch/escalation/rules/${ruleId}/enable`)).body.status).toBe('active');
    expect((await route({ task_type: 'shipment', context: { domain: 'logistics', amount: 6000 } })).body.decision).toBe(
      'escalate_to_human',
    );
  });
});

describe('reading, changing and deleting rules', () => {
  it('changes a rule’s conditions, recomputing what it applies to, and records each version', async () => {
    const created = await admin('POST', '/v1/orch/escalation/rules', {
      json: rule({
        rule_name: 'Change me',
        priority: 'critical',
        conditions: [{ condition_type: 'task_type', operator: '==', value: 'alpha' }],
      }),
    });
    const changed = await admin('PATCH', `/v1/orch/escalation/rules/${created.body.rule_id}`, {
      json: {
        conditions: [{ condition_type: 'task_type', operator: 'in', value: ['beta', 'gamma'] }],
        description: 'changed',
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ version: 2, description: 'changed', applies_to: ['beta', 'gamma'] });
    const read = await admin('GET', `/v1/orch/escalation/rules/${created.body.rule_id}`);
    expect(read.body).toMatchObject({
      version: 2,
      conditions: [{ condition_type: 'task_type', operator: 'in', value: ['beta', 'gamma'] }],
    });
    expect(await stepIds(created.body.rule_id)).toEqual(['created', 'v2']);

    expect((await admin('DELETE', `/v1/orch/escalation/rules/${created.body.rule_id}`)).status).toBe(204);
    expectProblem(await admin('GET', `/v1/orch/escalation/rules/${created.body.rule_id}`), 404, 'rule_not_found');
    expectProblem(await admin('DELETE', `/v1/orch/escalation/rules/${created.body.rule_id}`), 404, 'rule_not_found');
    expect(await stepIds(created.body.rule_id)).toEqual(['created', 'v2', 'deleted']);
  });

  it('lists rules with filters and pages', async () => {
    const all = await admin('GET', '/v1/orch/escalation/rules?limit=2');
    expect(all.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const disabled = await admin('GET', '/v1/orch/escalation/rules?enabled=false');
    expect(disabled.body.data.every((r: { status: string }) => r.status === 'disabled')).toBe(true);
    expect(disabled.body.total_count).toBeGreaterThan(0);
    expectProblem(await admin('GET', '/v1/orch/escalation/rules?priority=extreme'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/orch/escalation/rules/not-a-rule'), 400, 'validation_failed');
  });

  it('dry-runs a rule without creating it', async () => {
    const before = (await admin('GET', '/v1/orch/escalation/rules')).body.total_count;
    const reply = await admin('POST', '/v1/orch/escalation/rules/dry-run', {
      json: {
        conditions: [{ condition_type: 'task_type', operator: '==', value: 'rate_probe' }],
        actions: [{ action: 'escalate_to_human', target_capability: 'general_review' }],
        priority: 'medium',
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      applies_to: ['rate_probe'],
      trigger_rate_basis: { routings_triggered: 4 },
      findings: [],
    });
    expect((await admin('GET', '/v1/orch/escalation/rules')).body.total_count).toBe(before);
  });
});
