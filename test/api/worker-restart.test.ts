import { verifyStoredLedger } from '../../services/ledger/export';
import { verifySignature } from '../../lib/outbound/signature';
import { eventually } from '../support/eventually';
import { client, expectProblem, type CallResult } from '../support/http';
import { gate, LOCAL_PARTIES_ENV, startRemoteParty, type RemoteParty } from '../support/remote-party';
import { asPerson } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof client>;
let agent: RemoteParty;
let receiver: RemoteParty;
let secret: string;
const firstCallHeld = gate();

const CFO = 'did:web:acme.example:people:cfo';
const ADA = 'did:web:acme.example:people:ada';
const WORKER_AGENT = 'agent://default/restart-worker@1.0.0';
const PAYER = 'agent://default/restart-payer@1.0.0';

beforeAll(async () => {
  stack = await startStack(LOCAL_PARTIES_ENV);
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
  // The first call to arrive is held until the worker is stopped under it; every later one is answered.
  agent = await startRemoteParty(async (request, index) => {
    if (index === 0) await firstCallHeld.wait;
    return { status: 200, body: { done: request.body.parameters.job, attempt: request.body.attempt } };
  });
  receiver = await startRemoteParty(() => ({ status: 204 }));
  const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  await admin('POST', '/v1/agents', {
    json: {
      agent_uri: WORKER_AGENT,
      endpoint_url: `${agent.url}/run`,
      capabilities: ['capability://acme/work'],
      approval_policy: { require_approval_at: 'never' },
    },
  });
  await admin('POST', '/v1/agents', {
    json: {
      agent_uri: PAYER,
      endpoint_url: `${agent.url}/pay`,
      capabilities: ['capability://acme/pay'],
      approval_policy: { require_approval_at: 'high', approver_passport_id: CFO },
    },
  });
  secret = (await api('POST', '/v1/callback-secrets')).body.secret;
});
afterAll(async () => {
  firstCallHeld.open();
  await agent?.close();
  await receiver?.close();
  await stack?.stop();
});

const approval = (extra: Record<string, unknown> = {}) =>
  api('POST', '/v1/approvals', {
    json: {
      requester_passport_id: ADA,
      approver_passport_id: CFO,
      action_description: 'restart test',
      request_data: { amount: 10 },
      ...extra,
    },
  }).then((reply) => reply.body.id as string);
const execution = (
  agentUri: string,
  capabilityUri: string,
  parameters: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) =>
  api('POST', '/v1/agents/call', {
    json: { agentUri, capabilityUri, passport: ADA, parameters, callback_url: `${receiver.url}/hook`, ...extra },
  }).then((reply: CallResult) => reply.body);
const status = (path: string) => api('GET', path).then((reply) => reply.body);

describe('a worker stopped while approvals, executions and a workflow are pending, and a new one started', () => {
  it('sees every one finish correctly', async () => {
    // Before: everything waiting on something.
    const toApprove = await approval();
    const toCancel = await approval();
    const toExpire = await approval({ expires_in_seconds: 3 });
    const inFlight = await execution(WORKER_AGENT, 'capability://acme/work', { job: 'in-flight' });
    await eventually(
      async () => agent.requests.length,
      (count) => count === 1,
    );
    const awaitingApproval = await execution(PAYER, 'capability://acme/pay', { job: 'pay', amount: 50_000 });
    expect(awaitingApproval).toMatchObject({ status: 'queued', approval_required: true });
    const dag = await api('POST', '/v1/workflows', {
      json: {
        name: 'restart',
        nodes: [
          {
            id: 'ask',
            node_type: 'approval',
            node_name: 'ask',
            approval: { action_description: 'go?', approver_passport_id: CFO },
          },
          {
            id: 'work',
            node_type: 'agent',
            node_name: 'work',
            input: { job: 'dag' },
            agent: { agentUri: WORKER_AGENT, capabilityUri: 'capability://acme/work' },
          },
        ],
        edges: [{ id: 'e', from_node_id: 'ask', to_node_id: 'work' }],
      },
    });
    const dagId = dag.body.workflow_id;
    const dagApproval = await eventually(
      () => status(`/v1/workflows/${dagId}`),
      (body) => body.nodes[0].status === 'running',
    ).then((body) => body.nodes[0].approval_id as string);
    await eventually(
      () => status(`/v1/approvals/${dagApproval}`),
      (body) => body.status === 'pending',
    );

    // The worker goes away with a call in flight; the short approval's deadline passes while none runs.
    await stack.stopWorker();
    expect(agent.requests[0]!.aborted).toBe(true);
    firstCallHeld.open();
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect((await status(`/v1/approvals/${toExpire}`)).status).toBe('pending');
    const lateAnswer = (await asPerson(stack, CFO))('POST', `/v1/approvals/${toExpire}/respond`, {
      json: { decision: 'approved' },
    });

    await stack.startWorker();

    // After: each waits no more, and ends as it should.
    expectProblem(await lateAnswer, 409, 'approval_not_pending');
    expect(
      await eventually(
        () => status(`/v1/approvals/${toExpire}`),
        (body) => body.status !== 'pending',
      ),
    ).toMatchObject({ status: 'expired' });
    expect(
      (
        await (
          await asPerson(stack, CFO)
        )('POST', `/v1/approvals/${toApprove}/respond`, { json: { decision: 'approved' } })
      ).body.status,
    ).toBe('approved');
    expect(
      (
        await (
          await asPerson(stack, CFO)
        )('POST', `/v1/approvals/${toCancel}/cancel`, { json: { reason: 'after restart' } })
      ).body.status,
    ).toBe('cancelled');
    await (
      await asPerson(stack, CFO)
    )('POST', `/v1/approvals/${awaitingApproval.approval_id}/respond`, { json: { decision: 'approved' } });
    await (
      await asPerson(stack, CFO)
    )('POST', `/v1/approvals/${dagApproval}/respond`, { json: { decision: 'approve' } });

    const done = (id: string) =>
      eventually(
        () => status(`/v1/executions/${id}`),
        (body) => body.callback_success !== null,
        { timeoutMs: 30_000 },
      );
    const resumed = await done(inFlight.id);
    expect(resumed).toMatchObject({
      status: 'completed',
      current_attempt: 2,
      result_json: { done: 'in-flight', attempt: 2 },
      callback_success: true,
    });
    expect(
      resumed.attempts
        .filter((a: { kind: string }) => a.kind === 'agent')
        .map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome]),
    ).toEqual([
      [1, 'cancelled'],
      [2, 'succeeded'],
    ]);
    expect(await done(awaitingApproval.id)).toMatchObject({
      status: 'completed',
      result_json: { done: 'pay' },
      callback_success: true,
    });
    expect(
      await eventually(
        () => status(`/v1/workflows/${dagId}`),
        (body) => body.status !== 'running',
        { timeoutMs: 30_000 },
      ),
    ).toMatchObject({ status: 'completed', stats: { completed: 2 } });

    // Exactly one callback per execution got through, each signed.
    const callbacks = receiver.requests.filter((request) => request.body.type === 'execution.completed');
    expect(callbacks.map((request) => request.body.data.id).sort()).toEqual([inFlight.id, awaitingApproval.id].sort());
    for (const request of callbacks)
      expect(verifySignature(request.headers['x-svc-signature'] as string, request.raw, secret).ok).toBe(true);
    expect(await verifyStoredLedger(stack.database.db)).toMatchObject({ ok: true, problems: [] });
  });
});
