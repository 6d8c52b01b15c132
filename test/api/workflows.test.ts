import { eventually } from '../support/eventually';
import { client, expectProblem, type CallResult } from '../support/http';
import { startRemoteParty, type RemoteParty } from '../support/remote-party';
import { asPerson } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof client>;
let agent: RemoteParty;
const WRITER = 'agent://default/writer@1.0.0';
const GUARDED = 'agent://default/guarded@1.0.0';
const BOSS = 'did:web:acme.example:people:boss';

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
  agent = await startRemoteParty((request) => {
    const { step } = request.body.parameters as { step: string };
    if (step === 'score') return { status: 200, body: { score: 0.91 } };
    if (step === 'explode') return { status: 400, body: { error: 'no' } };
    return { status: 200, body: { wrote: step, saw: Object.keys(request.body.parameters.upstream ?? {}) } };
  });
  const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  await admin('POST', '/v1/agents', {
    json: {
      agent_uri: WRITER,
      endpoint_url: `${agent.url}/run`,
      capabilities: ['capability://acme/write'],
      approval_policy: { require_approval_at: 'never' },
    },
  });
  await admin('POST', '/v1/agents', {
    json: {
      agent_uri: GUARDED,
      endpoint_url: `${agent.url}/run`,
      capabilities: ['capability://acme/write'],
      approval_policy: { require_approval_at: 'low', approver_passport_id: BOSS },
    },
  });
});
afterAll(async () => {
  await agent?.close();
  await stack?.stop();
});

const write = (id: string, step = id) => ({
  id,
  node_type: 'agent',
  node_name: `write ${id}`,
  input: { step },
  agent: { agentUri: WRITER, capabilityUri: 'capability://acme/write' },
});
const seq = (from: string, to: string) => ({ id: `${from}-${to}`, from_node_id: from, to_node_id: to });

function create(body: Record<string, unknown>): Promise<CallResult> {
  return api('POST', '/v1/workflows', { json: { name: 'newsletter', ...body } });
}

const finished = (id: string) =>
  eventually(
    () => api('GET', `/v1/workflows/${id}`),
    (reply) => ['completed', 'failed'].includes(reply.body.status),
  ).then((reply) => reply.body);

describe('POST /v1/workflows', () => {
  it.each([
    [
      'a cycle',
      { nodes: [write('a'), write('b')], edges: [seq('a', 'b'), seq('b', 'a')] },
      [{ field: 'edges', code: 'cycle' }],
    ],
    [
      'an edge to a node that does not exist',
      { nodes: [write('a')], edges: [seq('a', 'ghost')] },
      [{ field: 'edges.0.to_node_id', code: 'unknown_node' }],
    ],
    ['an unknown node type', { nodes: [{ ...write('a'), node_type: 'email' }] }, [{ field: 'nodes.0.node_type' }]],
    [
      'a condition that does not parse',
      {
        nodes: [write('a'), write('b')],
        edges: [{ ...seq('a', 'b'), edge_type: 'conditional', condition: 'score >' }],
      },
      [{ field: 'edges.0.condition', code: 'invalid_condition' }],
    ],
    [
      'an agent node without its agent',
      { nodes: [{ id: 'a', node_type: 'agent', node_name: 'a' }] },
      [{ field: 'nodes.0.agent', code: 'required' }],
    ],
    [
      'an agent that is not registered',
      {
        nodes: [
          { ...write('a'), agent: { agentUri: 'agent://acme/ghost@1.0.0', capabilityUri: 'capability://acme/write' } },
        ],
      },
      [{ field: 'nodes.0.agent.agentUri', code: 'agent_not_found' }],
    ],
    [
      'a capability the agent does not offer',
      { nodes: [{ ...write('a'), agent: { agentUri: WRITER, capabilityUri: 'capability://acme/paint' } }] },
      [{ field: 'nodes.0.agent', code: 'capability_not_matched' }],
    ],
    [
      'an approval node without its request',
      { nodes: [{ id: 'a', node_type: 'approval', node_name: 'a' }] },
      [{ field: 'nodes.0.approval', code: 'required' }],
    ],
  ])('refuses %s with field errors, and starts nothing', async (_name, body, errors) => {
    const before = await stack.database.db('platform_workflows').count<{ count: number }[]>({ count: '*' });
    const reply = await create(body);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual(expect.arrayContaining(errors.map((error) => expect.objectContaining(error))));
    const after = await stack.database.db('platform_workflows').count<{ count: number }[]>({ count: '*' });
    expect(after[0]!.count).toBe(before[0]!.count);
  });

  it('runs a DAG of agent calls, a condition and an approval to completion, with exact stats and a provenance trace', async () => {
    const created = await create({
      nodes: [
        write('score'),
        { id: 'good', node_type: 'condition', node_name: 'good enough?', condition: 'score > 0.8' },
        {
          id: 'sign-off',
          node_type: 'approval',
          node_name: 'sign-off',
          approval: { action_description: 'Send the newsletter?', approver_passport_id: BOSS },
        },
        write('send'),
        write('rewrite'),
      ],
      edges: [
        seq('score', 'good'),
        { ...seq('good', 'sign-off'), edge_type: 'conditional', condition: 'result' },
        seq('sign-off', 'send'),
        { ...seq('good', 'rewrite'), edge_type: 'conditional', condition: '!result' },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      workflow_id: expect.stringMatching(/^wfl_/),
      status: 'running',
      root_node: { id: 'score' },
    });
    const id = created.body.workflow_id;

    const waiting = await eventually(
      () => api('GET', `/v1/workflows/${id}`),
      (reply) => reply.body.nodes.find((n: { id: string }) => n.id === 'sign-off').status === 'running',
    );
    expect(waiting.body.stats).toMatchObject({
      total_nodes: 5,
      completed: 2,
      running: 1,
      pending: 1,
      skipped: 1,
      failed: 0,
    });
    const approvalId = waiting.body.nodes.find((n: { id: string }) => n.id === 'sign-off').approval_id;
    // The node names its approval as it starts; the approval's own record follows once its workflow has run.
    const queue = await eventually(
      () => api('GET', `/v1/approvals?approver=${encodeURIComponent(BOSS)}&status=pending`),
      (reply) => reply.body.data.length > 0,
    );
    expect(queue.body.data).toEqual([expect.objectContaining({ id: approvalId, workflow_id: id })]);
    await (
      await asPerson(stack, BOSS)
    )('POST', `/v1/approvals/${approvalId}/respond`, { json: { decision: 'approved' } });

    const done = await finished(id);
    expect(done.status).toBe('completed');
    expect(done.nodes.map((n: { id: string; status: string }) => [n.id, n.status])).toEqual([
      ['score', 'completed'],
      ['good', 'completed'],
      ['sign-off', 'completed'],
      ['send', 'completed'],
      ['rewrite', 'skipped'],
    ]);
    const send = done.nodes.find((n: { id: string }) => n.id === 'send');
    expect(send.output).toEqual({ wrote: 'send', saw: ['sign-off'] });
    const execution = await api('GET', `/v1/executions/${send.execution_id}`);
    expect(execution.body).toMatchObject({ status: 'completed', workflow_id: id, node_id: 'send' });

    const durations = done.nodes
      .filter((n: { status: string }) => n.status === 'completed')
      .map((n: { duration_ms: number }) => n.duration_ms);
    const stats = await api('GET', `/v1/workflows/${id}/stats`);
    expect(stats.body).toEqual({
      total_nodes: 5,
      completed: 4,
      failed: 0,
      running: 0,
      pending: 0,
      skipped: 1,
      total_duration_ms: durations.reduce((a: number, b: number) => a + b, 0),
      avg_node_duration_ms: durations.reduce((a: number, b: number) => a + b, 0) / 4,
    });

    const trace = await api('GET', `/v1/workflows/${id}/provenance`);
    const steps = trace.body.records.map(
      (r: { node_id: string | null; step_id: string }) => `${r.node_id ?? '-'}:${r.step_id}`,
    );
    expect(steps[0]).toBe('-:started');
    expect(steps.at(-1)).toBe('-:finished');
    expect(steps).toEqual(
      expect.arrayContaining([
        'score:queued',
        'score:completed',
        '-:node:score',
        'sign-off:requested',
        'sign-off:responded',
        '-:node:sign-off',
        'send:completed',
        '-:node:send',
      ]),
    );
    const blocks = trace.body.records.map(
      (r: { ledger_anchor: { block_number: number } }) => r.ledger_anchor.block_number,
    );
    expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
  });

  it('runs an agent node whose agent wants an approval: the request is recorded and the call runs once approved', async () => {
    const created = await create({
      nodes: [{ ...write('guarded'), agent: { agentUri: GUARDED, capabilityUri: 'capability://acme/write' } }],
    });
    expect(created.status).toBe(201);
    const queue = await eventually(
      () => api('GET', `/v1/approvals?agent_id=${encodeURIComponent(GUARDED)}`),
      (reply) => reply.body.data.length > 0,
    );
    expect(queue.body.data).toEqual([
      expect.objectContaining({
        status: 'pending',
        approver_passport_id: BOSS,
        execution_id: expect.stringMatching(/^exe_/),
      }),
    ]);
    const approved = await (
      await asPerson(stack, BOSS)
    )('POST', `/v1/approvals/${queue.body.data[0].id}/respond`, { json: { decision: 'approved' } });
    expect(approved.status).toBe(200);
    const done = await finished(created.body.workflow_id);
    expect(done).toMatchObject({
      status: 'completed',
      nodes: [expect.objectContaining({ id: 'guarded', status: 'completed', output: { wrote: 'guarded', saw: [] } })],
    });
  });

  it('fails the workflow when a node fails, and skips what comes after', async () => {
    const created = await create({ nodes: [write('boom', 'explode'), write('after')], edges: [seq('boom', 'after')] });
    const done = await finished(created.body.workflow_id);
    expect(done).toMatchObject({
      status: 'failed',
      error: { type: 'node_failed', node_ids: ['boom'] },
      stats: { failed: 1, skipped: 1 },
    });
    expect(done.nodes[0].error).toMatchObject({ type: 'agent_rejected', status: 400 });
  });
});

describe('GET /v1/workflows', () => {
  it('lists by status and agent, and answers 404 for an unknown workflow', async () => {
    const ok = (await create({ nodes: [write('one')] })).body.workflow_id;
    await finished(ok);
    const completed = await api('GET', '/v1/workflows?status=completed&limit=100');
    expect(completed.body.data.map((w: { workflow_id: string }) => w.workflow_id)).toContain(ok);
    expect(completed.body.data.every((w: { status: string }) => w.status === 'completed')).toBe(true);
    const byAgent = await api('GET', `/v1/workflows?agent_id=${encodeURIComponent(WRITER)}&limit=100`);
    expect(byAgent.body.data.map((w: { workflow_id: string }) => w.workflow_id)).toContain(ok);
    const none = await api('GET', `/v1/workflows?agent_id=${encodeURIComponent('agent://acme/ghost@1.0.0')}`);
    expect(none.body).toMatchObject({ data: [], total_count: 0 });
    expectProblem(await api('GET', '/v1/workflows/wfl_nope'), 404, 'workflow_not_found');
    expectProblem(await api('GET', '/v1/workflows/wfl_nope/stats'), 404, 'workflow_not_found');
  });
});
