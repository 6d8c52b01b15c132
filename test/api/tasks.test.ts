import { defaultPayloadConverter } from '@temporalio/common';
import { client, expectProblem } from '../support/http';
import { asPerson, resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let api: ReturnType<typeof client>;
const SUMMARIZER = 'agent://default/task-summarizer@1.0.0';

const stack = useStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read', 'orch:write', 'orch:read']));
  const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  const registered = await admin('POST', '/v1/agents', {
    json: {
      agent_uri: SUMMARIZER,
      endpoint_url: 'http://127.0.0.1:9/run',
      capabilities: ['capability://acme/summarize', 'capability://acme/medical_diagnosis'],
    },
  });
  expect(registered.status).toBe(201);
});

/** The input a workflow was started with, as Temporal recorded it. */
async function startInput(workflowId: string): Promise<unknown> {
  const history = await (await stack.startedWorkflow(workflowId)).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
}

describe('POST /v1/tasks', () => {
  it('hands a task to the agent offering its capabilities when the agent is confident enough', async () => {
    const reply = await api('POST', '/v1/tasks', {
      json: {
        title: 'Summarize the report',
        task_type: 'summarize',
        required_capabilities: ['summarize'],
        ai_confidence: 0.93,
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`/v1/tasks/${reply.body.task_id}`);
    expect(reply.body).toMatchObject({
      task_id: expect.stringMatching(/^tsk_/),
      routing_id: expect.stringMatching(/^rt_/),
      status: 'assigned',
      agent_uri: SUMMARIZER,
      decision: 'ai_autonomous',
      assigned_to: { type: 'ai_agent', agent_id: SUMMARIZER },
    });
    const routing = await api('GET', `/v1/orch/routing/${reply.body.routing_id}`);
    expect(routing.body).toMatchObject({ status: 'completed', decision: 'ai_autonomous' });
    const events = await stack.database.db('outbox_events').whereRaw("data->>'task_id' = ?", [reply.body.task_id]);
    expect(events.map((e: { event: string }) => e.event)).toEqual(['task.submitted']);
  });

  it('gives it to a qualified human when the agent is not confident (Fourth Law), and shows the resolution', async () => {
    const reply = await api('POST', '/v1/tasks', {
      json: {
        title: 'Read the scan',
        task_type: 'diagnosis',
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.85 }],
        ai_confidence: 0.55,
      },
    });
    expect(reply.body).toMatchObject({
      status: 'assigned',
      agent_uri: SUMMARIZER,
      decision: 'escalate_to_human',
      assigned_to: { type: 'human', did: 'did:web:handoff.local:reviewers:ada' },
    });
    const waiting = await api('GET', `/v1/tasks/${reply.body.task_id}/status`);
    expect(waiting.body).toMatchObject({
      status: 'assigned',
      routing_status: 'in_progress',
      progress: { current_step: 'human_review' },
      resolution: null,
    });

    await resolveAs(stack, reply.body.routing_id, 'did:web:handoff.local:reviewers:ada', { outcome: 'approved' });
    const resolved = await api('GET', `/v1/tasks/${reply.body.task_id}/status`);
    expect(resolved.body).toMatchObject({
      status: 'resolved',
      routing_status: 'completed',
      progress: { current_step: 'completed' },
      resolution: { reviewer_did: 'did:web:handoff.local:reviewers:ada', outcome: 'approved' },
    });
  });

  it('sends a task no agent offers to a human, whatever the confidence', async () => {
    const reply = await api('POST', '/v1/tasks', {
      json: { title: 'Approve the budget', required_capabilities: ['financial_approval'], ai_confidence: 0.99 },
    });
    expect(reply.body).toMatchObject({
      agent_uri: null,
      decision: 'escalate_to_human',
      assigned_to: { did: 'did:web:handoff.local:reviewers:grace' },
    });
  });

  it('keeps a task a human must take but none qualifies for as unassigned, queued for a reviewer', async () => {
    const reply = await api('POST', '/v1/tasks', {
      json: { title: 'Inspect the reactor', required_capabilities: ['nuclear_safety'] },
    });
    expect(reply.status).toBe(201);
    const task = await api('GET', `/v1/tasks/${reply.body.task_id}`);
    expect(task.body).toMatchObject({ status: 'unassigned', routing_id: reply.body.routing_id });
  });

  it('with the same Idempotency-Key after a lost reply, reaches the same task and routing', async () => {
    const key = `task-${Math.random()}`;
    const body = { title: 'Summarize again', required_capabilities: ['summarize'], ai_confidence: 0.9 };
    const first = await api('POST', '/v1/tasks', { json: body, headers: { 'idempotency-key': key } });
    await stack.database.db('idempotency_keys').where({ idempotency_key: key }).delete();
    const retry = await api('POST', '/v1/tasks', { json: body, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const rows = await stack.database.db('ledger_entries').where({ subject_id: first.body.task_id });
    expect(rows).toHaveLength(1);
  });

  it('routes with the deployment’s windows, so a supervisor may reopen for review a task the agent took alone', async () => {
    const reply = await api('POST', '/v1/tasks', {
      json: {
        title: 'Summarize the minutes',
        task_type: 'summarize',
        required_capabilities: ['summarize'],
        ai_confidence: 0.95,
      },
    });
    expect(reply.body).toMatchObject({ decision: 'ai_autonomous', agent_uri: SUMMARIZER });
    expect(await startInput(reply.body.routing_id)).toMatchObject({
      autonomous_escalation_window_seconds: stack.config.AUTONOMOUS_ESCALATION_WINDOW_SECONDS,
      review_window_seconds: stack.config.ROUTING_REVIEW_WINDOW_SECONDS,
    });

    const reopened = await (
      await asPerson(stack, 'did:web:example.com:supervisor')
    )('POST', '/v1/orch/escalation/manual', {
      json: {
        routing_id: reply.body.routing_id,
        escalation_reason: 'the summary leaves out the budget',
        requested_by: 'did:web:example.com:supervisor',
      },
    });
    expect(reopened.status).toBe(200);
    // Nobody holds summarize: the reopened routing waits for a reviewer.
    expect(reopened.body).toMatchObject({ routing_id: reply.body.routing_id, status: 'queued' });
    expect((await api('GET', `/v1/tasks/${reply.body.task_id}`)).body).toMatchObject({ status: 'unassigned' });
  });

  it.each([
    ['no title', { required_capabilities: [] }, 400, 'validation_failed'],
    ['an unknown agent', { title: 'x', agent_uri: 'agent://acme/ghost@1.0.0' }, 404, 'agent_not_found'],
  ])('refuses %s', async (_name, body, status, code) => {
    expectProblem(await api('POST', '/v1/tasks', { json: body }), status, code);
  });

  it('answers 404 for an unknown task', async () => {
    expectProblem(await api('GET', '/v1/tasks/tsk_nope'), 404, 'task_not_found');
    expectProblem(await api('GET', '/v1/tasks/tsk_nope/status'), 404, 'task_not_found');
  });
});
