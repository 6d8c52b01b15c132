import { createRoutingActivities } from '../../activities/routing';
import type { RoutingState } from '../../contracts/route-task';
import { claimRoutingResolution, findRoutingById, routingStateOf } from '../../db/routings';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { signedInPerson } from '../support/identity';
import { signedInReviewer } from '../support/people';
import { useStack } from '../support/stack';

let token: string;

const stack = useStack();
beforeAll(async () => {
  token = await stack.token();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const lowConfidenceDiagnosis = {
  request_id: 'req-42',
  task_type: 'medical_diagnosis',
  context: { patient_age: 54 },
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};

describe('POST /v1/orch/routing', () => {
  it('lets a confident agent act alone and anchors the decision', async () => {
    const { status, body, headers } = await call('POST', '/v1/orch/routing', {
      task_type: 'summarize',
      ai_agent_id: 'urn:acme:agent:sum:1',
      ai_confidence: 0.93,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      decision: 'ai_autonomous',
      reason: 'within_ai_authority',
      escalation_level: 'none',
      assigned_to: { type: 'ai_agent', agent_id: 'urn:acme:agent:sum:1' },
      estimated_response_time: 0,
      safety_analysis: { risk_level: 'low', all_constraints_met: true },
      provenance: { decision_made_by: 'orch_core', rule_triggered: 'within_ai_authority' },
    });
    expect(body.routing_id).toMatch(/^rt_/);
    expect(body.provenance.ledger_anchor.transaction_id).toMatch(/^[0-9a-f]{64}$/);
    expect(headers.get('location')).toBe(`/v1/orch/routing/${body.routing_id}`);

    const routing = await call('GET', `/v1/orch/routing/${body.routing_id}`);
    expect(routing.status).toBe(200);
    expect(routing.body).toMatchObject({
      status: 'completed',
      decision: 'ai_autonomous',
      progress: { steps_completed: 4, steps_total: 4, current_step: 'completed' },
    });
  });

  it('escalates below 0.70 confidence (the Fourth Law) to a qualified reviewer', async () => {
    const { status, body } = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'ai_confidence_below_threshold',
      escalation_level: 'low',
      assigned_to: {
        type: 'human',
        did: 'did:web:handoff.local:reviewers:ada',
        capabilities_matched: [{ capability_id: 'medical_diagnosis', weight: 0.9 }],
      },
      estimated_response_time: 900,
      safety_analysis: { all_constraints_met: false },
    });

    const routing = await call('GET', `/v1/orch/routing/${body.routing_id}`);
    expect(routing.body).toMatchObject({
      status: 'in_progress',
      assigned_to: { type: 'human', did: 'did:web:handoff.local:reviewers:ada' },
      progress: { steps_completed: 5, steps_total: 6, current_step: 'human_review' },
    });
    expect(Date.parse(routing.body.estimated_completion) - Date.parse(routing.body.assigned_at)).toBe(900_000);
  });

  it('sends life-safety tasks to a human at urgent level', async () => {
    const { body } = await call('POST', '/v1/orch/routing', {
      ...lowConfidenceDiagnosis,
      ai_confidence: 0.99,
      escalation_conditions: { life_safety_flag: true },
    });
    expect(body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'life_safety_flag',
      escalation_level: 'urgent',
      safety_analysis: { risk_level: 'critical' },
    });
  });

  it('accepts the spec’s alternative body with capability ids as strings', async () => {
    const { status, body } = await call('POST', '/v1/orch/routing', {
      task_id: 'task-9',
      ai_confidence: 0.5,
      required_capabilities: ['financial_approval'],
      urgency: 'high',
    });
    expect(status).toBe(200);
    expect(body.assigned_to).toMatchObject({ type: 'human', did: 'did:web:handoff.local:reviewers:grace' });
  });

  it('rejects an out-of-range confidence with field errors and writes nothing', async () => {
    const before = await stack.database.db('routings').count<{ count: number }[]>({ count: '*' });
    const { status, body } = await call('POST', '/v1/orch/routing', {
      ...lowConfidenceDiagnosis,
      ai_confidence: 1.7,
      bogus: true,
    });
    expect(status).toBe(400);
    expect(body.type).toBe('/problems/validation_failed');
    expect(body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'ai_confidence', code: 'too_big' }),
        expect.objectContaining({ code: 'unrecognized_keys' }),
      ]),
    );
    const after = await stack.database.db('routings').count<{ count: number }[]>({ count: '*' });
    expect(after[0]!.count).toBe(before[0]!.count);
  });
});

describe('crash safety of POST /v1/orch/routing', () => {
  it.each([
    ['a finished (autonomous) routing', { ai_confidence: 0.95 }],
    ['a running (escalated) routing', lowConfidenceDiagnosis],
  ])(
    'a retry with the same Idempotency-Key after the stored reply was lost reaches %s, not a new one',
    async (_name, request) => {
      const key = `crash-${Math.random()}`;
      const first = await call('POST', '/v1/orch/routing', request, { 'idempotency-key': key });
      expect(first.status).toBe(200);
      // As if the API died after the workflow started but before it stored its reply.
      await stack.database.db('idempotency_keys').where({ idempotency_key: key }).delete();

      const retry = await call('POST', '/v1/orch/routing', request, { 'idempotency-key': key });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retry.body).toEqual(first.body);
      const rows = await stack.database
        .db('routings')
        .where({ routing_id: first.body.routing_id })
        .count<{ count: number }[]>({ count: '*' });
      expect(rows[0]!.count).toBe(1);
    },
  );
});

describe('what a routing leaves behind', () => {
  it('puts its events in the outbox with the provenance record that caused them', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const events = await stack.database
      .db('outbox_events')
      .join('ledger_entries', 'ledger_entries.seq', 'outbox_events.provenance_seq')
      .where({ transaction_id: routed.body.provenance.ledger_anchor.transaction_id })
      .orderBy('event')
      .select('event', 'data');
    expect(events.map((e: { event: string }) => e.event)).toEqual([
      'escalation.triggered',
      'routing.decided',
      'routing.escalated',
    ]);
    expect(events.find((e: { event: string }) => e.event === 'routing.escalated').data).toEqual({
      task_id: 'req-42',
      routing_id: routed.body.routing_id,
      reason: 'ai_confidence_below_threshold',
      assigned_human: 'did:web:handoff.local:reviewers:ada',
    });
  });

  it('sets search attributes an SRE can filter on in the Temporal UI', async () => {
    const routed = await call('POST', '/v1/orch/routing', {
      ...lowConfidenceDiagnosis,
      ai_agent_id: 'urn:acme:agent:sa-probe:1',
    });
    const query = `WorkflowId = "${routed.body.routing_id}" AND HandoffDecision = "escalate_to_human" AND HandoffEscalationLevel = "low" AND HandoffAgentId = "urn:acme:agent:sa-probe:1" AND HandoffTaskType = "medical_diagnosis" AND HandoffConfidence < 0.7 AND HandoffRoutingStatus = "in_progress"`;
    let found: string[] = [];
    for (let attempt = 0; attempt < 50 && found.length === 0; attempt += 1) {
      found = [];
      for await (const execution of stack.temporal.workflow.list({ query })) found.push(execution.workflowId);
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(found).toEqual([routed.body.routing_id]);
  });

  it('starts its workflow with what the routing needs in time, not the whole verdict a second time', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const history = await (await stack.startedWorkflow(routed.body.routing_id)).fetchHistory();
    const [payload] = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const input = JSON.parse(Buffer.from(payload!.data!).toString('utf8'));
    expect(input.decided.decided.verdict).toEqual({
      decision: 'escalate_to_human',
      escalation_level: 'low',
      required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      notifications: [],
      risk: { level: expect.any(String) },
    });
    // The rules evaluated are the decision's record, and the routing's state keeps the safety analysis.
    expect(input.decided.state.decision_result.safety_analysis).toBeDefined();
  });
});

describe('GET /v1/orch/routing/{routing_id}', () => {
  it('is 404 for an unknown routing and 400 for a malformed id', async () => {
    expect((await call('GET', '/v1/orch/routing/rt_00000000-0000-0000-0000-000000000000')).body).toMatchObject({
      status: 404,
      type: '/problems/routing_not_found',
    });
    expect((await call('GET', '/v1/orch/routing/not-a-routing')).body).toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ field: 'path.routing_id' })],
    });
  });
});

describe('POST /v1/orch/routing/{routing_id}/resolve', () => {
  /** Ada, the dev reviewer, signed in. */
  let asAda: Record<string, string>;
  beforeAll(async () => {
    asAda = {
      authorization: `Bearer ${(await signedInReviewer(stack, 'did:web:handoff.local:reviewers:ada')).sessionToken}`,
    };
  });

  it('records exactly one resolution; a second one is a 409', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const id = routed.body.routing_id as string;
    const reviewer = 'did:web:handoff.local:reviewers:ada';

    const [first, second] = await Promise.all([
      call(
        'POST',
        `/v1/orch/routing/${id}/resolve`,
        { reviewer_did: reviewer, outcome: 'approved', comment: 'MRI is right' },
        asAda,
      ),
      call('POST', `/v1/orch/routing/${id}/resolve`, { reviewer_did: reviewer, outcome: 'rejected' }, asAda),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = first.status === 200 ? first : second;
    expect(winner.body).toMatchObject({ routing_id: id, status: 'completed', reviewer_did: reviewer });

    const third = await call(
      'POST',
      `/v1/orch/routing/${id}/resolve`,
      { reviewer_did: reviewer, outcome: 'approved' },
      asAda,
    );
    expect(third.status).toBe(409);
    expect(third.body.type).toBe('/problems/routing_not_awaiting_review');

    const routing = await call('GET', `/v1/orch/routing/${id}`);
    expect(routing.body).toMatchObject({
      status: 'completed',
      resolution: { reviewer_did: reviewer, outcome: winner.body.outcome },
    });

    // One record of it, the reviewer freed, and the workflow closed with the resolution the claim recorded.
    const { db } = stack.database;
    expect(
      await db('ledger_entries')
        .where({ subject_id: id, action: 'routing_resolved' })
        .count<{ count: number }[]>({ count: '*' }),
    ).toEqual([{ count: 1 }]);
    expect(
      await db('reviewer_assignments')
        .where({ routing_id: id })
        .whereNull('released_at')
        .count<{ count: number }[]>({ count: '*' }),
    ).toEqual([{ count: 0 }]);
    const closed = await (await stack.startedWorkflow(id)).result();
    expect(closed).toMatchObject({
      status: 'completed',
      resolution: { reviewer_did: reviewer, outcome: winner.body.outcome, ledger_anchor: winner.body.ledger_anchor },
    });
  });

  it('answers at once while no worker runs; the workflow closes with the resolution once one starts again', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const id = routed.body.routing_id as string;
    await stack.stopWorker();
    try {
      const resolved = await call(
        'POST',
        `/v1/orch/routing/${id}/resolve`,
        { outcome: 'rejected', comment: 'not without labs' },
        asAda,
      );
      expect(resolved.status).toBe(200);
      expect(resolved.body).toMatchObject({
        status: 'completed',
        reviewer_did: 'did:web:handoff.local:reviewers:ada',
        outcome: 'rejected',
      });
      expect((await call('GET', `/v1/orch/routing/${id}`)).body).toMatchObject({ status: 'completed' });
    } finally {
      await stack.startWorker();
    }
    expect(await (await stack.startedWorkflow(id)).result()).toMatchObject({
      status: 'completed',
      resolution: { outcome: 'rejected', comment: 'not without labs' },
    });
  });

  it('of a resolution and the workflow’s next step, the one that writes the next version first stands; the other leaves nothing', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const id = routed.body.routing_id as string;
    const { db } = stack.database;
    const read = routingStateOf((await findRoutingById(db, DEFAULT_ORGANIZATION_ID, id))!);
    // The workflow's escalation at a timeout, as its activity would record it, one version on.
    const step = (version: number, state: RoutingState) => ({
      provenance: [
        {
          entry: {
            subject_id: id,
            step_id: `escalation:race-${version}`,
            timestamp: new Date().toISOString(),
            actor: { type: 'orch_core' as const, did: 'did:web:handoff.local:orch' },
            action: 'escalated',
            input_data: {},
            output_data: {},
            reasoning: 'level timed out',
          },
        },
      ],
      projection: {
        state: { ...state, version, escalation_level: 'medium' as const, updated_at: new Date().toISOString() },
        request_id: 'req-42',
        task: routed.body.task ?? { ...lowConfidenceDiagnosis, safety_requirements: {}, escalation_conditions: {} },
        requested_by: 'test',
        organization_id: DEFAULT_ORGANIZATION_ID,
      },
    });
    const activities = createRoutingActivities({ db, temporal: stack.temporal, logger: { warn: () => undefined } });

    // The step first: a claim made from the version read before it takes nothing.
    const first = await activities.recordRoutingStep(step(read.version + 1, read));
    expect(first).toMatchObject({ transaction_id: expect.any(String) });
    // A retry of the recorded step (its answer lost) is no claim: it gets its anchor again.
    expect(await activities.recordRoutingStep(step(read.version + 1, read))).toEqual(first);
    const stale = await claimRoutingResolution(db, {
      routing_id: id,
      organization_id: DEFAULT_ORGANIZATION_ID,
      read_version: read.version,
      resolved: { ...read, status: 'completed' },
      signal: { name: 'routingResolved', args: [] },
    });
    expect(stale).toBeUndefined();

    // The resolution first (the API reads the routing again, so it claims the step's version): the next step is rolled back, records and all.
    const resolved = await call('POST', `/v1/orch/routing/${id}/resolve`, { outcome: 'approved' }, asAda);
    expect(resolved.status).toBe(200);
    const after = routingStateOf((await findRoutingById(db, DEFAULT_ORGANIZATION_ID, id))!);
    expect(after).toMatchObject({ version: read.version + 2, status: 'completed', escalation_level: 'medium' });
    const late = await activities.recordRoutingStep(step(read.version + 2, { ...read, version: read.version + 1 }));
    expect(late).toMatchObject({
      resolved_meanwhile: {
        status: 'completed',
        version: read.version + 2,
        resolution: { reviewer_did: 'did:web:handoff.local:reviewers:ada' },
      },
    });
    expect(
      await db('ledger_entries')
        .where({ subject_id: id, step_id: `escalation:race-${read.version + 2}` })
        .count<{ count: number }[]>({ count: '*' }),
    ).toEqual([{ count: 0 }]);
    expect(routingStateOf((await findRoutingById(db, DEFAULT_ORGANIZATION_ID, id))!)).toMatchObject({
      version: read.version + 2,
      status: 'completed',
    });
  });

  it('refuses a reviewer who is not on the chain, and an autonomous routing', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const mallory = await signedInPerson(stack, { name: 'Mallory' });
    const stranger = await call(
      'POST',
      `/v1/orch/routing/${routed.body.routing_id}/resolve`,
      { outcome: 'approved' },
      { authorization: `Bearer ${mallory.sessionToken}` },
    );
    expect(stranger.status).toBe(403);
    expect(stranger.body.type).toBe('/problems/reviewer_not_assigned');

    const autonomous = await call('POST', '/v1/orch/routing', { ai_confidence: 0.95 });
    const late = await call(
      'POST',
      `/v1/orch/routing/${autonomous.body.routing_id}/resolve`,
      { reviewer_did: 'did:web:handoff.local:reviewers:ada', outcome: 'approved' },
      asAda,
    );
    expect(late.status).toBe(409);
  });

  it('requires modified_recommendation for a modified outcome', async () => {
    const routed = await call('POST', '/v1/orch/routing', lowConfidenceDiagnosis);
    const { status, body } = await call(
      'POST',
      `/v1/orch/routing/${routed.body.routing_id}/resolve`,
      { reviewer_did: 'did:web:handoff.local:reviewers:ada', outcome: 'modified' },
      asAda,
    );
    expect(status).toBe(400);
    expect(body.errors).toEqual([expect.objectContaining({ field: 'modified_recommendation' })]);
  });

  it('is 404 for a routing that never existed', async () => {
    const { status } = await call(
      'POST',
      '/v1/orch/routing/rt_00000000-0000-0000-0000-000000000001/resolve',
      { reviewer_did: 'did:web:handoff.local:reviewers:ada', outcome: 'approved' },
      asAda,
    );
    expect(status).toBe(404);
  });
});
