import { registerAgent } from '../support/agents';
import { call, client, expectProblem } from '../support/http';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
});

const eventsOf = (subjectId: string) => eventKinds(stack.database.db, subjectId);

describe('POST /v1/orch/safety/check', () => {
  it('reports the violated boundaries, what is required, the capabilities to recommend and the Rule of Threes, and records one event pair per violation', async () => {
    const agent = await registerAgent(admin, {
      capabilities: [{ capability_id: 'medical_diagnosis', confidence_level: 0.6 }],
    });
    const reply = await admin('POST', '/v1/orch/safety/check', {
      json: {
        action: 'medical_diagnosis',
        context: { patient_age: 54 },
        actor: { type: 'ai_agent', agent_id: agent.agent_id, confidence: 0.62 },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-resource')).toBe('safety-checks');
    expect(reply.body).toMatchObject({
      boundary_check_id: expect.stringMatching(/^bc_/),
      allowed: false,
      domain: 'healthcare',
      required_action: 'escalate_to_human',
      recommended_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      rule_of_threes_analysis: {
        good_for_human: 'uncertain',
        good_for_humanity: true,
        good_for_svc: false,
        overall_assessment: 'not_aligned',
      },
    });
    expect(
      reply.body.violations.map((v: { boundary_id: string; boundary_type: string; severity: string }) => [
        v.boundary_id,
        v.boundary_type,
        v.severity,
      ]),
    ).toEqual([
      ['fourth_law', 'capability_boundary', 'high'],
      ['healthcare-diagnosis-capability', 'capability_boundary', 'high'],
      ['healthcare-patient-consent', 'context_boundary', 'medium'],
    ]);
    const events = await eventsOf(reply.body.boundary_check_id);
    expect(events.filter((e) => e === 'safety.violation')).toHaveLength(3);
    expect(events.filter((e) => e === 'safety.boundary_violation')).toHaveLength(3);
    const row = await stack.database
      .db('safety_checks')
      .where({ boundary_check_id: reply.body.boundary_check_id })
      .first();
    expect(row).toMatchObject({ agent_id: agent.agent_id, allowed: false, violation_count: 3 });
  });

  it('allows an action inside every boundary, with an uncertain judgment where nothing is stated', async () => {
    const agent = await registerAgent(admin);
    const reply = await admin('POST', '/v1/orch/safety/check', {
      json: {
        action: 'summarize_ticket',
        context: {},
        actor: { type: 'ai_agent', agent_id: agent.agent_id, confidence: 0.9 },
      },
    });
    expect(reply.body).toMatchObject({
      allowed: true,
      domain: 'general',
      violations: [],
      required_action: 'none',
      rule_of_threes_analysis: { good_for_human: 'uncertain', overall_assessment: 'requires_human_judgment' },
    });
    expect(await eventsOf(reply.body.boundary_check_id)).toEqual([]);
  });

  it('lets a human, and never an AI, use a boundary’s exception', async () => {
    await admin('PUT', '/v1/orch/safety/config/pharmacy', {
      json: {
        risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 },
        boundaries: [
          {
            boundary_id: 'pharmacy-consent',
            type: 'context_boundary',
            description: 'consent on file',
            enforcement: 'strict',
            severity: 'high',
            escalation_required: true,
            exceptions: 'emergency_override',
            required_context: ['patient_consent'],
          },
        ],
      },
    });
    const check = (actor: Record<string, unknown>, context: Record<string, unknown>) =>
      admin('POST', '/v1/orch/safety/check', {
        json: { action: 'dispense', context: { domain: 'pharmacy', ...context }, actor },
      });
    const human = { type: 'human', did: 'did:web:example.com:pharmacist' };
    expect((await check(human, {})).body).toMatchObject({
      allowed: false,
      violations: [{ boundary_id: 'pharmacy-consent', reason: 'missing_context' }],
      waived: [],
    });
    expect((await check(human, { emergency_override: true })).body).toMatchObject({
      violations: [],
      waived: ['pharmacy-consent'],
    });
    const agent = await registerAgent(admin);
    expect(
      (await check({ type: 'ai_agent', agent_id: agent.agent_id }, { emergency_override: true })).body,
    ).toMatchObject({ allowed: false, violations: [{ boundary_id: 'pharmacy-consent' }], waived: [] });
  });

  it('refuses an unregistered agent and one agent checking for another', async () => {
    expectProblem(
      await admin('POST', '/v1/orch/safety/check', {
        json: { action: 'x', actor: { type: 'ai_agent', agent_id: 'urn:acme:agent:ghost:9' } },
      }),
      403,
      'agent_not_registered',
    );
    const one = await registerAgent(admin);
    const two = await registerAgent(admin);
    const reply = await call(stack.baseUrl, 'POST', '/v1/orch/safety/check', {
      token: one.api_key,
      json: { action: 'x', actor: { type: 'ai_agent', agent_id: two.agent_id } },
    });
    expectProblem(reply, 403, 'agent_id_mismatch');
    const own = await call(stack.baseUrl, 'POST', '/v1/orch/safety/check', {
      token: one.api_key,
      json: { action: 'x', actor: { type: 'ai_agent' } },
    });
    expect(own.status).toBe(200);
    expect(
      (await stack.database.db('safety_checks').where({ boundary_check_id: own.body.boundary_check_id }).first())
        .agent_id,
    ).toBe(one.agent_id);
  });

  it('validates the body', async () => {
    const reply = await admin('POST', '/v1/orch/safety/check', {
      json: { action: '', actor: { type: 'robot', confidence: 2 } },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'action',
      'actor.confidence',
      'actor.type',
    ]);
  });
});

describe('safety configuration', () => {
  it('shows a domain’s boundaries, increasing thresholds and the rules that apply there', async () => {
    await admin('POST', '/v1/orch/escalation/rules', {
      json: {
        rule_name: 'health',
        conditions: [{ condition_type: 'domain', operator: '==', value: 'healthcare' }],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'high' }],
      },
    });
    await admin('POST', '/v1/orch/escalation/rules', {
      json: {
        rule_name: 'finance only',
        conditions: [{ condition_type: 'domain', operator: '==', value: 'finance' }],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'high' }],
      },
    });
    const reply = await admin('GET', '/v1/orch/safety/config?domain=healthcare');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      domain: 'healthcare',
      risk_thresholds: { low: 0.1, medium: 0.3, high: 0.6, critical: 0.85 },
      escalation_rules: 1,
      version: 1,
      last_updated: expect.any(String),
    });
    expect(reply.body.boundaries.map((b: { type: string }) => b.type).sort()).toEqual([
      'capability_boundary',
      'context_boundary',
      'risk_boundary',
      'safety_boundary',
    ]);
    expect(reply.body.boundaries[0]).toMatchObject({
      boundary_id: expect.any(String),
      description: expect.any(String),
      enforcement: 'strict',
      escalation_required: true,
    });
    expectProblem(await admin('GET', '/v1/orch/safety/config?domain=aviation'), 404, 'safety_domain_not_found');
  });

  it('lets an admin change a domain’s thresholds and boundaries, which the next routing uses', async () => {
    const route = () =>
      admin('POST', '/v1/orch/routing', {
        json: {
          task_type: 'ledger_export',
          ai_confidence: 0.95,
          context: { domain: 'accounting', contains_personal_data: true },
        },
      });
    expect((await route()).body).toMatchObject({
      decision: 'ai_autonomous',
      safety_analysis: { risk_level: 'medium' },
    });

    const put = await admin('PUT', '/v1/orch/safety/config/accounting', {
      json: {
        risk_thresholds: { low: 0.1, medium: 0.2, high: 0.4, critical: 0.8 },
        task_types: ['ledger_export'],
        boundaries: [
          {
            boundary_id: 'accounting-ceiling',
            type: 'risk_boundary',
            description: 'AI acts alone only on low risk',
            enforcement: 'strict',
            severity: 'high',
            escalation_required: true,
            max_risk_level: 'low',
          },
        ],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ domain: 'accounting', version: 1, task_types: ['ledger_export'] });
    const after = await route();
    expect(after.body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'risk_exceeds_ai_authority',
      safety_analysis: { risk_level: 'high', all_constraints_met: false },
    });
    expect(
      (await provenanceEntry(stack.database.db, 'safety_config:accounting', 'v1'))?.input_data.risk_thresholds,
    ).toEqual({ low: 0.1, medium: 0.2, high: 0.4, critical: 0.8 });

    const again = await admin('PUT', '/v1/orch/safety/config/accounting', {
      json: { risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 }, boundaries: [] },
    });
    expect(again.body.version).toBe(2);
  });

  it('refuses thresholds that do not increase, duplicate boundary ids, a malformed boundary, and a non-admin', async () => {
    const bad = await admin('PUT', '/v1/orch/safety/config/general', {
      json: { risk_thresholds: { low: 0.5, medium: 0.4, high: 0.7, critical: 0.9 }, boundaries: [] },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'risk_thresholds' })]);
    const boundary = {
      boundary_id: 'dup',
      type: 'context_boundary',
      description: 'd',
      enforcement: 'advisory',
      severity: 'low',
      escalation_required: false,
      required_context: ['x'],
    };
    const dup = await admin('PUT', '/v1/orch/safety/config/general', {
      json: { risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 }, boundaries: [boundary, boundary] },
    });
    expectProblem(dup, 400, 'validation_failed');
    expect(dup.body.errors).toEqual([expect.objectContaining({ field: 'boundaries.1.boundary_id' })]);
    const malformed = await admin('PUT', '/v1/orch/safety/config/general', {
      json: {
        risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 },
        boundaries: [{ ...boundary, type: 'risk_boundary' }],
      },
    });
    expectProblem(malformed, 400, 'validation_failed');
    const reader = await stack.token(['orch:read', 'orch:write']);
    expectProblem(
      await call(stack.baseUrl, 'PUT', '/v1/orch/safety/config/general', {
        token: reader,
        json: { risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 }, boundaries: [] },
      }),
      403,
      'insufficient_scope',
    );
    expect((await admin('GET', '/v1/orch/safety/config?domain=general')).body.version).toBe(1);
  });
});
