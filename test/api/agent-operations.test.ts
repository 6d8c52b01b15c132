import { registerAgent, taskId } from '../support/agents';
import { call, client, expectProblem } from '../support/http';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;
let agent: { agent_id: string; api_key: string };
let as: ReturnType<typeof client>;

// The only reviewer holding triage_review, so that assignments here do not depend on other reviewers' load.
const TRIAGE = 'did:web:example.com:reviewers:triage';

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  agent = await registerAgent(admin, {
    agent_type: 'diagnosis',
    capabilities: [
      { capability_id: 'medical_diagnosis', confidence_level: 0.9 },
      { capability_id: 'triage_review', confidence_level: 0.9 },
    ],
  });
  as = client(stack.baseUrl, agent.api_key);
  await admin('PUT', `/v1/orch/reviewers/${TRIAGE}`, {
    json: { display_name: 'Triage', capabilities: { triage_review: 0.9 } },
  });
});

const events = (routingId: string, stepId?: string) => eventKinds(stack.database.db, routingId, stepId);

const reviewTask = (confidence: number, extra: Record<string, unknown> = {}) => ({
  task_id: taskId(),
  task_type: 'review',
  ai_assessment: { can_handle: true, confidence },
  required_capabilities: [{ capability_id: 'triage_review', min_weight: 0.5 }],
  ...extra,
});

describe('POST /v1/orch/route', () => {
  it('applies the Fourth Law below 0.70 and names the human', async () => {
    const task = reviewTask(0.55, {
      human_context: 'two readings disagree',
      ai_assessment: { can_handle: true, confidence: 0.55, uncertainty_reason: 'conflicting labs' },
    });
    const reply = await as('POST', '/v1/orch/route', { json: task, headers: { 'x-confidence-score': '0.55' } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      routing_id: expect.stringMatching(/^rt_/),
      task_id: task.task_id,
      routing_decision: 'escalate_to_human',
      reason: 'ai_confidence_below_threshold',
      assigned_human: TRIAGE,
      ai_context_provided: true,
      fourth_law_triggered: true,
      escalation_level: 'low',
      estimated_response_time: 900,
    });
  });

  it('lets a confident agent act alone, without handing over context', async () => {
    const reply = await as('POST', '/v1/orch/route', {
      json: reviewTask(0.92),
      headers: { 'x-confidence-score': '0.92' },
    });
    expect(reply.body).toMatchObject({
      routing_decision: 'ai_autonomous',
      reason: 'within_ai_authority',
      assigned_human: null,
      ai_context_provided: false,
      fourth_law_triggered: false,
    });
  });

  it('takes the confidence from the header alone, and refuses a header that disagrees with the body', async () => {
    const headerOnly = await as('POST', '/v1/orch/route', {
      json: { task_id: taskId(), task_type: 'review' },
      headers: { 'x-confidence-score': '0.4' },
    });
    expect(headerOnly.body).toMatchObject({ routing_decision: 'escalate_to_human', fourth_law_triggered: true });

    const before = await stack.database.db('routings').count<{ count: number }[]>({ count: '*' });
    const mismatch = await as('POST', '/v1/orch/route', {
      json: reviewTask(0.9),
      headers: { 'x-confidence-score': '0.6' },
    });
    expectProblem(mismatch, 422, 'confidence_mismatch');
    expect(mismatch.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'header.x-confidence-score',
      'ai_assessment.confidence',
    ]);
    const after = await stack.database.db('routings').count<{ count: number }[]>({ count: '*' });
    expect(after[0]!.count).toBe(before[0]!.count);

    expectProblem(
      await as('POST', '/v1/orch/route', { json: reviewTask(0.9), headers: { 'x-confidence-score': 'high' } }),
      400,
      'validation_failed',
    );
    expectProblem(await as('POST', '/v1/orch/route', { json: { task_id: taskId() } }), 400, 'validation_failed');
  });

  it('documents the syntax of X-Confidence-Score it enforces', async () => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    const header = doc.paths['/v1/orch/route'].post.parameters.find(
      (parameter: { name: string }) => parameter.name === 'x-confidence-score',
    );
    const documented = new RegExp(header.schema.pattern);
    for (const refused of ['high', '1.5', '-0.1', '0.5.5']) {
      expect(documented.test(refused)).toBe(false);
      expectProblem(
        await as('POST', '/v1/orch/route', {
          json: { task_id: taskId(), task_type: 'review' },
          headers: { 'x-confidence-score': refused },
        }),
        400,
        'validation_failed',
      );
    }
    for (const admitted of ['0.95', '1', '.8']) {
      expect(documented.test(admitted)).toBe(true);
      expect(
        (
          await as('POST', '/v1/orch/route', {
            json: { task_id: taskId(), task_type: 'review' },
            headers: { 'x-confidence-score': admitted },
          })
        ).status,
      ).toBe(200);
    }
  });

  it('answers a task routed again with its first decision', async () => {
    const task = reviewTask(0.9);
    const first = await as('POST', '/v1/orch/route', { json: task });
    const again = await as('POST', '/v1/orch/route', { json: { ...task, ai_assessment: { confidence: 0.1 } } });
    expect(again.body).toEqual(first.body);
    expect(
      await stack.database
        .db('routings')
        .where({ request_id: task.task_id })
        .count<{ count: number }[]>({ count: '*' }),
    ).toEqual([{ count: 1 }]);
  });

  it('escalates what the agent asks a human for, or says it cannot handle', async () => {
    expect(
      (await as('POST', '/v1/orch/route', { json: reviewTask(0.95, { escalation_recommendation: true }) })).body,
    ).toMatchObject({ routing_decision: 'escalate_to_human', reason: 'agent_requested_escalation' });
    expect(
      (
        await as('POST', '/v1/orch/route', {
          json: reviewTask(0.95, { ai_assessment: { can_handle: false, confidence: 0.95 } }),
        })
      ).body,
    ).toMatchObject({ routing_decision: 'escalate_to_human', reason: 'ai_cannot_handle' });
  });

  it('enforces the agent’s registered constraints', async () => {
    const careful = await registerAgent(admin, { safety_constraints: { cannot_prescribe: true } });
    const reply = await call(stack.baseUrl, 'POST', '/v1/orch/route', {
      token: careful.api_key,
      json: { task_id: taskId(), task_type: 'prescribe_antibiotics', ai_assessment: { confidence: 0.99 } },
    });
    expect(reply.body).toMatchObject({ routing_decision: 'escalate_to_human', reason: 'agent_cannot_prescribe' });
    expect(await events(reply.body.routing_id, 'context_analysis')).toEqual([
      'safety.boundary_violation',
      'safety.violation',
    ]);
    expect(await events(reply.body.routing_id, 'routing_decision')).toEqual([
      'escalation.triggered',
      'routing.decided',
      'routing.escalated',
    ]);
  });

  it('queues the task when nobody can take it, tells the agent a human takes over when one is available, and lets it not act alone', async () => {
    const task = reviewTask(0.3, { required_capabilities: [{ capability_id: 'astrophysics', min_weight: 0.5 }] });
    const reply = await as('POST', '/v1/orch/route', { json: task });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      routing_decision: 'escalate_to_human',
      assigned_human: null,
      queued: {
        reason: 'no_qualified_reviewer',
        required_capabilities: [{ capability_id: 'astrophysics', min_weight: 0.5 }],
        message: expect.stringContaining('a human takes over'),
      },
    });
    const report = await as('POST', '/v1/orch/confidence', { json: { task_id: task.task_id, confidence: 0.95 } });
    expectProblem(report, 422, 'escalation_required');
    expect(report.body.escalation).toMatchObject({ required: true, reason: 'waiting_for_reviewer' });
  });
});

describe('POST /v1/orch/batch-route', () => {
  it('decides each task on its own in one workflow each, reports failures per item, and is idempotent as a whole', async () => {
    const tasks = [
      { task_id: taskId('b'), type: 'review', confidence: 0.95 },
      { task_id: taskId('b'), type: 'review', confidence: 0.4, required_capabilities: ['triage_review'] },
      {
        task_id: taskId('b'),
        type: 'review',
        confidence: 0.3,
        required_capabilities: [{ capability_id: 'astrophysics', min_weight: 0.9 }],
      },
    ];
    const reply = await as('POST', '/v1/orch/batch-route', { json: { tasks } });
    expect(reply.status).toBe(200);
    expect(reply.body.summary).toEqual({ total: 3, routed: 3, failed: 0 });
    expect(reply.body.data).toEqual([
      expect.objectContaining({ task_id: tasks[0]!.task_id, status: 'routed', routing_decision: 'ai_autonomous' }),
      expect.objectContaining({
        task_id: tasks[1]!.task_id,
        status: 'routed',
        routing_decision: 'escalate_to_human',
        assigned_human: TRIAGE,
      }),
      expect.objectContaining({
        task_id: tasks[2]!.task_id,
        status: 'routed',
        routing_decision: 'escalate_to_human',
        assigned_human: null,
        queued: expect.objectContaining({ reason: 'no_qualified_reviewer' }),
      }),
    ]);
    const ids = reply.body.data.map((item: { routing_id: string }) => item.routing_id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect((await (await stack.startedWorkflow(id)).describe()).type).toBe('routeTaskWorkflow');

    const again = await as('POST', '/v1/orch/batch-route', { json: { tasks } });
    expect(again.body.data.map((item: { routing_id: string }) => item.routing_id)).toEqual(ids);
    expect(again.body.data[1]).toEqual(reply.body.data[1]);
    const rows = await stack.database
      .db('routings')
      .whereIn(
        'request_id',
        tasks.map((t) => t.task_id),
      )
      .count<{ count: number }[]>({ count: '*' });
    expect(rows[0]!.count).toBe(3);
  });

  it('reports invalid items one by one, with their index and the single route’s field errors, and routes the rest', async () => {
    const first = { task_id: taskId('v'), type: 'review', confidence: 0.95 };
    const last = { task_id: taskId('v'), type: 'review', confidence: 0.9 };
    const tasks = [
      first,
      { task_id: taskId('v'), type: 'review', confidence: 1.7 },
      { type: 'review', confidence: 0.5, bogus: true },
      { ...first, confidence: 0.2 },
      'not a task',
      last,
    ];
    const reply = await as('POST', '/v1/orch/batch-route', { json: { tasks } });
    expect(reply.status).toBe(200);
    expect(reply.body.summary).toEqual({ total: 6, routed: 2, failed: 4 });
    const invalid = (index: number, errors: unknown[]) =>
      expect.objectContaining({
        index,
        status: 'failed',
        error: expect.objectContaining({
          type: '/problems/validation_failed',
          title: expect.any(String),
          status: 400,
          errors,
        }),
      });
    expect(reply.body.data).toEqual([
      expect.objectContaining({
        index: 0,
        task_id: first.task_id,
        status: 'routed',
        routing_decision: 'ai_autonomous',
      }),
      invalid(1, [expect.objectContaining({ field: 'confidence', code: 'too_big' })]),
      invalid(
        2,
        expect.arrayContaining([
          expect.objectContaining({ field: 'task_id', code: 'REQUIRED_FIELD_MISSING' }),
          expect.objectContaining({ code: 'unrecognized_keys', received: '"bogus"' }),
        ]),
      ),
      invalid(3, [
        expect.objectContaining({ field: 'task_id', code: 'duplicate', message: expect.stringContaining('index 0') }),
      ]),
      invalid(4, [expect.objectContaining({ field: '', code: 'invalid_type' })]),
      expect.objectContaining({ index: 5, task_id: last.task_id, status: 'routed' }),
    ]);
    expect(reply.body.data[1].task_id).toBe((tasks[1] as { task_id: string }).task_id);
    expect(reply.body.data[3].routing_id).toBeUndefined();
    const rows = await stack.database
      .db('routings')
      .whereIn('request_id', [first.task_id, last.task_id, (tasks[1] as { task_id: string }).task_id])
      .count<{ count: number }[]>({ count: '*' });
    expect(rows[0]!.count).toBe(2);
  });

  it('refuses an empty batch, more than 100 tasks, and a body without a list of tasks', async () => {
    expectProblem(
      await as('POST', '/v1/orch/batch-route', { json: { tasks: 'all of them' } }),
      400,
      'validation_failed',
    );
    expectProblem(await as('POST', '/v1/orch/batch-route', { json: { tasks: [] } }), 400, 'validation_failed');
    const many = Array.from({ length: 101 }, (_, i) => ({ task_id: `t${i}`, type: 'x', confidence: 0.9 }));
    expectProblem(await as('POST', '/v1/orch/batch-route', { json: { tasks: many } }), 400, 'validation_failed');
  });
});

describe('POST /v1/orch/confidence', () => {
  it('records a confidence at or above 0.70 and lets the agent act', async () => {
    const task = reviewTask(0.9);
    const routed = await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/confidence', {
      json: { task_id: task.task_id, confidence: 0.8 },
      headers: { 'x-confidence-score': '0.8' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      routing_id: routed.body.routing_id,
      action_allowed: true,
      fourth_law_triggered: false,
      status: 'completed',
    });
    expect(
      (await provenanceEntry(stack.database.db, routed.body.routing_id, 'confidence:1'))?.input_data,
    ).toMatchObject({ confidence: 0.8, proceed_autonomously: true });
  });

  it('answers 422 below 0.70 with escalation.required and suggested reviewers, and hands the task to a human', async () => {
    const task = reviewTask(0.9);
    const routed = await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/confidence', {
      json: { task_id: task.task_id, confidence: 0.5, reason: 'new evidence' },
    });
    expectProblem(reply, 422, 'confidence_below_threshold');
    expect(reply.body).toMatchObject({
      errors: [{ field: 'ai_confidence', code: 'below_threshold', message: expect.any(String) }],
      escalation: {
        required: true,
        reason: 'ai_confidence_below_threshold',
        suggested_reviewers: expect.arrayContaining([TRIAGE]),
      },
      assigned_human: TRIAGE,
      routing_id: routed.body.routing_id,
    });
    const status = await admin('GET', `/v1/orch/routing/${routed.body.routing_id}`);
    expect(status.body).toMatchObject({ status: 'in_progress', assigned_to: { type: 'human', did: TRIAGE } });
    expect(await events(routed.body.routing_id)).toEqual(
      expect.arrayContaining(['routing.escalated', 'escalation.triggered']),
    );
  });

  it('reports below 0.70 without asking to proceed: 200, and the human now holds it', async () => {
    const task = reviewTask(0.9);
    await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/confidence', {
      json: { task_id: task.task_id, confidence: 0.5, proceed_autonomously: false },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      action_allowed: false,
      fourth_law_triggered: true,
      status: 'in_progress',
      assigned_to: { did: TRIAGE },
    });
  });

  it('answers escalation_required when a human holds the task', async () => {
    const task = reviewTask(0.5);
    await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/confidence', { json: { task_id: task.task_id, confidence: 0.95 } });
    expectProblem(reply, 422, 'escalation_required');
    expect(reply.body.escalation).toEqual({
      required: true,
      reason: 'human_holds_task',
      suggested_reviewers: [TRIAGE],
    });
  });

  it('answers safety_violation when constraints set since the decision forbid the task, and records it with its events', async () => {
    const later = await registerAgent(admin);
    const task = { task_id: taskId(), task_type: 'prescription_refill', ai_assessment: { confidence: 0.9 } };
    const routed = await call(stack.baseUrl, 'POST', '/v1/orch/route', { token: later.api_key, json: task });
    expect(routed.body.routing_decision).toBe('ai_autonomous');
    await admin('PATCH', `/v1/orch/agents/${encodeURIComponent(later.agent_id)}`, {
      json: { safety_constraints: { cannot_prescribe: true } },
    });
    const reply = await call(stack.baseUrl, 'POST', '/v1/orch/confidence', {
      token: later.api_key,
      json: { task_id: task.task_id, confidence: 0.9 },
    });
    expectProblem(reply, 403, 'safety_violation');
    expect(reply.body.violations).toEqual([
      expect.objectContaining({
        reason: 'agent_cannot_prescribe',
        boundary_type: 'safety_boundary',
        severity: 'critical',
      }),
    ]);
    expect(await events(routed.body.routing_id)).toEqual(
      expect.arrayContaining(['safety.violation', 'safety.boundary_violation']),
    );
  });

  it('is 404 for a task the agent never routed, and 409 for an ai_first routing', async () => {
    expectProblem(
      await as('POST', '/v1/orch/confidence', { json: { task_id: 'never-routed', confidence: 0.9 } }),
      404,
      'routing_not_found',
    );
    const task = reviewTask(0.9, { routing_mode: 'ai_first' });
    await as('POST', '/v1/orch/route', { json: task });
    expectProblem(
      await as('POST', '/v1/orch/confidence', { json: { task_id: task.task_id, confidence: 0.9 } }),
      409,
      'routing_closed',
    );
  });
});

describe('POST /v1/orch/escalate', () => {
  it('hands the agent’s task to a human with the escalation chain', async () => {
    const task = reviewTask(0.9);
    const routed = await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/escalate', {
      json: { task_id: task.task_id, reason: 'customer asked for a person', urgency: 'high' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      escalation_id: expect.stringMatching(/^esc_/),
      routing_id: routed.body.routing_id,
      status: 'assigned',
      assigned_to: { type: 'human', did: TRIAGE, capabilities: [{ capability_id: 'triage_review', weight: 0.9 }] },
      escalation_level: 'high',
      estimated_response_time: 1800,
      escalation_chain: [{ level: 1, did: TRIAGE, escalation_level: 'high', timestamp: expect.any(String) }],
    });
    expect((await provenanceEntry(stack.database.db, routed.body.routing_id, 'escalation:1'))?.actor).toMatchObject({
      type: 'ai_agent',
      agent_id: agent.agent_id,
    });
  });

  it('queues the task for a human when no reviewer holds the capability asked for, instead of leaving it with the agent', async () => {
    const task = reviewTask(0.9);
    const routed = await as('POST', '/v1/orch/route', { json: task });
    const reply = await as('POST', '/v1/orch/escalate', {
      json: { task_id: task.task_id, reason: 'x', target_capability: 'astrophysics' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'queued',
      assigned_to: null,
      queued: {
        required_capabilities: [
          { capability_id: 'triage_review', min_weight: 0.5 },
          { capability_id: 'astrophysics', min_weight: 0 },
        ],
      },
    });
    expect((await admin('GET', `/v1/orch/routing/${routed.body.routing_id}`)).body).toMatchObject({
      status: 'queued',
      assigned_to: null,
    });
  });
});

describe('POST /v1/orch/provenance', () => {
  it('appends the agent’s action to its task’s decision chain with audit.provenance_logged; a retry with the same key writes once', async () => {
    const task = reviewTask(0.9);
    const routed = await as('POST', '/v1/orch/route', { json: task });
    const body = {
      task_id: task.task_id,
      action: 'sent_summary',
      input_data: { pages: 3 },
      output_data: { words: 120 },
      reasoning: 'summary ready',
      instance_id: 'pod-7',
    };
    const first = await as('POST', '/v1/orch/provenance', { json: body, headers: { 'idempotency-key': 'log-1' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      routing_id: routed.body.routing_id,
      step_id: expect.stringMatching(/^agent_action:/),
      ledger_anchor: { transaction_id: expect.any(String) },
      safety_violations: [],
    });
    // As if the reply were lost before the idempotency record was stored.
    await stack.database.db('idempotency_keys').where({ idempotency_key: 'log-1' }).delete();
    const retry = await as('POST', '/v1/orch/provenance', { json: body, headers: { 'idempotency-key': 'log-1' } });
    expect(retry.body.ledger_anchor).toEqual(first.body.ledger_anchor);

    const chain = await admin('GET', `/v1/orch/provenance/${routed.body.routing_id}`);
    const logged = chain.body.decision_chain.filter((step: { action: string }) => step.action === 'sent_summary');
    expect(logged).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'ai_agent', agent_id: agent.agent_id, instance_id: 'pod-7' }),
        input_data: { pages: 3 },
      }),
    ]);
    expect((await events(routed.body.routing_id)).filter((e) => e === 'audit.provenance_logged')).toHaveLength(1);
  });

  it('records an action the agent’s constraints forbid, with the safety events', async () => {
    const careful = await registerAgent(admin, { safety_constraints: { cannot_prescribe: true } });
    const task = { task_id: taskId(), task_type: 'review', ai_assessment: { confidence: 0.9 } };
    const routed = await call(stack.baseUrl, 'POST', '/v1/orch/route', { token: careful.api_key, json: task });
    const reply = await call(stack.baseUrl, 'POST', '/v1/orch/provenance', {
      token: careful.api_key,
      json: { task_id: task.task_id, action: 'prescribed_medication', reasoning: 'oops' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.safety_violations).toEqual([expect.objectContaining({ reason: 'agent_cannot_prescribe' })]);
    expect(await events(routed.body.routing_id)).toEqual(
      expect.arrayContaining(['audit.provenance_logged', 'safety.violation', 'safety.boundary_violation']),
    );
  });

  it('is 404 for a task of another agent', async () => {
    const task = reviewTask(0.9);
    await as('POST', '/v1/orch/route', { json: task });
    const other = await registerAgent(admin);
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/orch/provenance', {
        token: other.api_key,
        json: { task_id: task.task_id, action: 'x', reasoning: 'y' },
      }),
      404,
      'routing_not_found',
    );
  });
});

describe('GET /v1/orch/boundaries', () => {
  it('says an amount beyond the AI’s authority needs senior approval', async () => {
    const reply = await as('GET', '/v1/orch/boundaries?action=refund&amount=25000');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-resource')).toBe('safety-checks');
    expect(reply.body).toMatchObject({
      domain: 'finance',
      risk_level: 'high',
      action_allowed: false,
      reason: 'amount_exceeds_ai_authority',
      human_approval_required: true,
      approval_tier: 'senior',
    });
  });

  it('allows a small amount, and applies the agent’s own ceiling', async () => {
    expect((await as('GET', '/v1/orch/boundaries?action=refund&amount=50')).body).toMatchObject({
      action_allowed: true,
      reason: 'within_ai_authority',
      human_approval_required: false,
      approval_tier: 'none',
    });
    const cautious = await registerAgent(admin, { safety_constraints: { max_risk_level: 'low' } });
    const reply = await call(stack.baseUrl, 'GET', '/v1/orch/boundaries?action=refund&amount=5000', {
      token: cautious.api_key,
    });
    expect(reply.body).toMatchObject({
      action_allowed: false,
      reason: 'amount_exceeds_ai_authority',
      approval_tier: 'standard',
      violations: [{ boundary_id: 'agent:max_risk_level', reason: 'amount_exceeds_ai_authority', severity: 'high' }],
    });
  });

  it('requires the action', async () => {
    expectProblem(await as('GET', '/v1/orch/boundaries?amount=10'), 400, 'validation_failed');
  });
});
