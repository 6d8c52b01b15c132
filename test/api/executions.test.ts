import { verifyStoredLedger } from '../../services/ledger/export';
import { verifySignature } from '../../lib/outbound/signature';
import { principalDid } from '../../lib/ids';
import { eventually } from '../support/eventually';
import { startExtraApp } from '../support/app';
import { call as request, client, expectProblem, type CallResult } from '../support/http';
import { gate, LOCAL_PARTIES_ENV, startRemoteParty, type RemoteParty } from '../support/remote-party';
import { asPerson } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;
let callbackSecret: string;
const parties: RemoteParty[] = [];

beforeAll(async () => {
  stack = await startStack({ ...LOCAL_PARTIES_ENV, OUTBOUND_TIMEOUT_MS: '5000' });
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
  admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  callbackSecret = (await api('POST', '/v1/callback-secrets')).body.secret;
});
afterAll(async () => {
  for (const party of parties) await party.close();
  await stack?.stop();
});

async function party(...args: Parameters<typeof startRemoteParty>): Promise<RemoteParty> {
  const started = await startRemoteParty(...args);
  parties.push(started);
  return started;
}

let agents = 0;
/** Registers an agent of its own at the given party's endpoint. */
async function register(
  endpoint: RemoteParty,
  extra: Record<string, unknown> = {},
): Promise<{ agent_id: string; agent_uri: string }> {
  agents += 1;
  const reply = await admin('POST', '/v1/agents', {
    json: {
      agent_uri: `agent://default/agent-${agents}@1.0.0`,
      endpoint_url: `${endpoint.url}/run`,
      capabilities: ['capability://acme/summarize', 'capability://acme/pay'],
      ...extra,
    },
  });
  expect(reply.status).toBe(201);
  return reply.body;
}

const ADA = 'did:web:acme.example:people:ada';

function call(
  agentUri: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<CallResult> {
  return api('POST', '/v1/agents/call', {
    json: {
      agentUri,
      capabilityUri: 'capability://acme/summarize',
      passport: ADA,
      parameters: { text: 'a long text' },
      ...extra,
    },
    headers,
  });
}

const finished = (id: string) =>
  eventually(
    () => api('GET', `/v1/executions/${id}`),
    (reply) =>
      ['completed', 'failed', 'cancelled'].includes(reply.body.status) &&
      (reply.body.callback_success !== null) === (reply.body.callback_url !== null),
  ).then((reply) => reply.body);

/** What an agent does with the progress token it was given. */
function reportProgress(
  request: { body: { progress: { url: string; token: string } } },
  body: unknown,
  token = request.body.progress.token,
): Promise<Response> {
  return fetch(request.body.progress.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('the agents registry', () => {
  it('registers an agent with its endpoint, lists and reads it, and refuses a second registration of the URI', async () => {
    const endpoint = await party();
    const agent = await register(endpoint, {
      description: 'Summarizes',
      approval_policy: { require_approval_at: 'critical', approver_passport_id: ADA },
    });
    expect(agent).toMatchObject({
      agent_id: expect.stringMatching(/^agt_[0-9a-f]{24}$/),
      passportId: expect.stringMatching(/^did:web:handoff.local:agents:default:agent-/),
      capabilities: ['capability://acme/summarize', 'capability://acme/pay'],
      status: 'active',
      approval_policy: { require_approval_at: 'critical', approver_passport_id: ADA },
      timeout_seconds: 300,
      max_attempts: 3,
    });
    const read = await api('GET', `/v1/agents/${agent.agent_id}`);
    expect(read.body).toMatchObject({ ...agent, deployments: [] });
    const listed = await api('GET', `/v1/agents?capability=${encodeURIComponent('capability://acme/pay')}&limit=100`);
    expect(listed.body.data.map((a: { agent_id: string }) => a.agent_id)).toContain(agent.agent_id);

    const again = await admin('POST', '/v1/agents', {
      json: { agent_uri: agent.agent_uri, endpoint_url: `${endpoint.url}/run`, capabilities: ['capability://acme/x'] },
    });
    expectProblem(again, 409, 'agent_exists');
    expect(again.body.agent_id).toBe(agent.agent_id);
    const events = await stack.database.db('outbox_events').whereRaw("data->>'agent_id' = ?", [agent.agent_id]);
    expect(events.map((e: { event: string }) => e.event)).toEqual(['platform_agent.registered']);
  });

  it.each([
    ['a private endpoint the outbound policy refuses', { endpoint_url: 'http://10.1.2.3/run' }, 'endpoint_url'],
    ['a malformed agent URI', { agent_uri: 'agent://Acme/x' }, 'agent_uri'],
    ['a capability that is not a capability URI', { capabilities: ['summarize'] }, 'capabilities.0'],
    ['no capabilities', { capabilities: [] }, 'capabilities'],
  ])('refuses %s', async (_name, change, field) => {
    const reply = await admin('POST', '/v1/agents', {
      json: {
        agent_uri: 'agent://default/refused@1.0.0',
        endpoint_url: 'http://127.0.0.1:9/run',
        capabilities: ['capability://acme/x'],
        ...change,
      },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('needs platform:admin to register', async () => {
    expectProblem(
      await api('POST', '/v1/agents', {
        json: {
          agent_uri: 'agent://acme/nope@1.0.0',
          endpoint_url: 'http://127.0.0.1:9/run',
          capabilities: ['capability://acme/x'],
        },
      }),
      403,
      'insufficient_scope',
    );
  });
});

describe('POST /v1/agents/call', () => {
  it('invokes the agent, which fails twice, reports progress with its token, answers; the signed callback gets through on the third try', async () => {
    const hold = gate();
    const progressReplies: Array<{ status: number; body: { progress_percent: number; current_attempt: number } }> = [];
    const endpoint = await party(async (request) => {
      if (request.body.attempt <= 2) return { status: 503, body: { error: 'busy' } };
      const reply = await reportProgress(request, { progress_percent: 40, progress_message: 'reading' });
      progressReplies.push({
        status: reply.status,
        body: (await reply.json()) as (typeof progressReplies)[number]['body'],
      });
      await hold.wait;
      return { status: 200, body: { summary: 'short', words: 3 } };
    });
    const receiver = await party((_request, index) => (index < 2 ? { status: 500 } : { status: 204 }));
    const agent = await register(endpoint);

    const accepted = await call(agent.agent_uri, { callback_url: `${receiver.url}/hook`, task_id: 'task-7' });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('location')).toBe(`/v1/executions/${accepted.body.id}`);
    expect(accepted.body).toMatchObject({
      id: expect.stringMatching(/^exe_/),
      status: 'queued',
      approval_required: false,
      agent_id: agent.agent_id,
      agent_uri: agent.agent_uri,
      capability_uri: 'capability://acme/summarize',
      requester_passport_id: ADA,
      task_id: 'task-7',
      risk_level: 'low',
      max_attempts: 3,
      callback_url: `${receiver.url}/hook`,
      callback_success: null,
    });
    const id: string = accepted.body.id;

    const working = await eventually(
      () => api('GET', `/v1/executions/${id}`),
      // The agent records the reply only after reading it, which can be after the row already shows 40.
      (reply) => reply.body.progress_percent === 40 && progressReplies.length > 0,
    );
    expect(working.body).toMatchObject({ status: 'processing', progress_message: 'reading', current_attempt: 3 });
    expect(progressReplies).toEqual([
      { status: 200, body: expect.objectContaining({ progress_percent: 40, current_attempt: 3 }) },
    ]);
    hold.open();

    const done = await finished(id);
    expect(done).toMatchObject({
      status: 'completed',
      result_json: { summary: 'short', words: 3 },
      current_attempt: 3,
      progress_percent: 100,
      callback_success: true,
      callback_attempts: 3,
    });
    expect(
      done.attempts
        .filter((a: { kind: string }) => a.kind === 'agent')
        .map((a: { attempt: number; outcome: string; status_code: number }) => [a.attempt, a.outcome, a.status_code]),
    ).toEqual([
      [1, 'retryable_failure', 503],
      [2, 'retryable_failure', 503],
      [3, 'succeeded', 200],
    ]);
    expect(
      done.attempts.filter((a: { kind: string }) => a.kind === 'callback').map((a: { outcome: string }) => a.outcome),
    ).toEqual(['retryable_failure', 'retryable_failure', 'succeeded']);

    // What the agent received: the call, and a progress token that is a JWT of this deployment.
    expect(endpoint.requests[2]!.body).toMatchObject({
      execution_id: id,
      attempt: 3,
      agent_uri: agent.agent_uri,
      capability_uri: 'capability://acme/summarize',
      parameters: { text: 'a long text' },
      task_id: 'task-7',
    });
    expect(endpoint.requests[2]!.body.progress.url).toBe(`${stack.baseUrl}/v1/executions/${id}/progress`);

    // What the receiver got: three tries of one delivery, each signed with the caller's secret.
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['x-svc-delivery-id']))).toEqual(new Set([`${id}:callback`]));
    for (const delivery of receiver.requests)
      expect(
        verifySignature(delivery.headers['x-svc-signature'] as string, delivery.raw, callbackSecret),
      ).toMatchObject({ ok: true });
    const last = receiver.requests[2]!.body;
    expect(last).toMatchObject({
      id: `${id}:callback`,
      type: 'execution.completed',
      data: { id, status: 'completed', result_json: { summary: 'short', words: 3 } },
    });
    const { attempts: _attempts, ...view } = done;
    expect(Object.keys(last.data).sort()).toEqual(Object.keys(view).sort());

    const records = await stack.database.db('ledger_entries').where({ subject_id: id }).orderBy('seq');
    expect(records.map((r: { step_id: string }) => r.step_id)).toEqual([
      'queued',
      'processing',
      'completed',
      'callback',
    ]);
  });

  it('refuses progress without the token, with another execution’s token, with an access token, and once the attempt is over', async () => {
    const hold = gate();
    const seen: Array<{ body: { progress: { url: string; token: string } } }> = [];
    const endpoint = await party(async (request) => {
      seen.push(request);
      await hold.wait;
      return { status: 200, body: {} };
    });
    const agent = await register(endpoint);
    const [first, second] = [(await call(agent.agent_uri)).body.id, (await call(agent.agent_uri)).body.id];
    await eventually(
      async () => seen.length,
      (count) => count === 2,
    );
    const byExecution = (id: string) => seen.find((request) => request.body.progress.url.includes(id))!;

    const none = await fetch(`${stack.baseUrl}/v1/executions/${first}/progress`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"progress_percent":10}',
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { type: string }).type).toBe('/problems/invalid_progress_token');
    const crossed = await fetch(`${stack.baseUrl}/v1/executions/${first}/progress`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${byExecution(second).body.progress.token}`,
        'content-type': 'application/json',
      },
      body: '{"progress_percent":10}',
    });
    expect(crossed.status).toBe(401);
    expect(((await crossed.json()) as { detail: string }).detail).toContain('another execution');
    const accessToken = await reportProgress(byExecution(first), { progress_percent: 10 }, await stack.token());
    expect(accessToken.status).toBe(401);
    const tooMuch = await reportProgress(byExecution(first), { progress_percent: 101 });
    expect(tooMuch.status).toBe(400);

    hold.open();
    await finished(first);
    const late = await reportProgress(byExecution(first), { progress_percent: 90 });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { type: string }).type).toBe('/problems/execution_not_processing');
    await finished(second);
  });

  it('fails at once when the agent refuses the call (4xx), without retrying', async () => {
    const endpoint = await party(() => ({ status: 422, body: { error: 'text too short' } }));
    const agent = await register(endpoint);
    const done = await finished((await call(agent.agent_uri)).body.id);
    expect(done).toMatchObject({
      status: 'failed',
      current_attempt: 1,
      error_json: { type: 'agent_rejected', status: 422 },
    });
    expect(endpoint.requests).toHaveLength(1);
  });

  it('fails after max_attempts when the agent keeps failing', async () => {
    const endpoint = await party(() => ({ status: 500 }));
    const agent = await register(endpoint);
    const done = await finished((await call(agent.agent_uri, { max_attempts: 2 })).body.id);
    expect(done).toMatchObject({
      status: 'failed',
      current_attempt: 2,
      max_attempts: 2,
      error_json: { type: 'agent_error', status: 500 },
    });
    expect(endpoint.requests).toHaveLength(2);
  });

  it('cancels an execution while the agent works: the HTTP call is aborted and nothing is retried', async () => {
    const endpoint = await party(() => new Promise(() => undefined));
    const agent = await register(endpoint);
    const id = (await call(agent.agent_uri)).body.id;
    await eventually(
      async () => endpoint.requests.length,
      (count) => count === 1,
    );
    const cancelled = await api('POST', `/v1/executions/${id}/cancel`, {
      json: { cancelled_by: ADA, reason: 'not needed' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled', cancelled_by: ADA, cancel_reason: 'not needed' });
    await eventually(
      async () => endpoint.requests[0]!.aborted,
      (aborted) => aborted,
    );
    const again = await api('POST', `/v1/executions/${id}/cancel`, { json: { reason: 'again' } });
    expectProblem(again, 409, 'execution_not_cancellable');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(endpoint.requests).toHaveLength(1);
    expect((await api('GET', `/v1/executions/${id}`)).body.attempts).toEqual([
      expect.objectContaining({ kind: 'agent', attempt: 1, outcome: 'cancelled' }),
    ]);
  });

  it('with the same Idempotency-Key after a lost reply, reaches the same execution', async () => {
    const endpoint = await party(() => ({ status: 200, body: {} }));
    const agent = await register(endpoint);
    const key = `call-${Math.random()}`;
    const first = await call(agent.agent_uri, {}, { 'idempotency-key': key });
    await stack.database.db('idempotency_keys').where({ idempotency_key: key }).delete();
    const retry = await call(agent.agent_uri, {}, { 'idempotency-key': key });
    expect(retry.body.id).toBe(first.body.id);
    await finished(first.body.id);
    expect(endpoint.requests).toHaveLength(1);
  });

  it.each([
    ['an unknown agent', { agentUri: 'agent://acme/ghost@1.0.0' }, 404, 'agent_not_found'],
    [
      'a capability the agent does not offer',
      { capabilityUri: 'capability://acme/translate' },
      422,
      'capability_not_matched',
    ],
    ['a private callback_url', { callback_url: 'http://10.0.0.1/hook' }, 400, 'validation_failed'],
    ['no passport', { passport: undefined }, 400, 'validation_failed'],
  ])('refuses %s', async (_name, change, status, code) => {
    const agent = await register(await party());
    expectProblem(await call(agent.agent_uri, change), status, code);
  });

  it('refuses a callback_url from a caller without a callback signing secret', async () => {
    const agent = await register(await party());
    const stranger = client(stack.baseUrl, await stack.token(['platform:write'], 'stranger'));
    const reply = await stranger('POST', '/v1/agents/call', {
      json: {
        agentUri: agent.agent_uri,
        capabilityUri: 'capability://acme/summarize',
        passport: ADA,
        callback_url: 'http://127.0.0.1:9/hook',
      },
    });
    expectProblem(reply, 422, 'callback_secret_required');
  });

  it('refuses calls to an agent made inactive', async () => {
    const agent = await register(await party());
    const patched = await admin('PATCH', `/v1/agents/${agent.agent_id}`, { json: { status: 'inactive' } });
    expect(patched.body.status).toBe('inactive');
    expectProblem(await call(agent.agent_uri), 422, 'agent_inactive');
  });
});

describe('calls the agent’s policy wants approved', () => {
  const CFO = 'did:web:acme.example:people:cfo';

  async function payer(endpoint: RemoteParty) {
    return register(endpoint, {
      approval_policy: { require_approval_at: 'high', approver_passport_id: CFO },
      parameters_schema: {
        type: 'object',
        properties: { amount: { type: 'number', maximum: 100_000 }, payee: { type: 'string' } },
        required: ['amount'],
      },
    });
  }

  it('creates the approval first; once approved with modified parameters, the agent gets those', async () => {
    const endpoint = await party(() => ({ status: 200, body: { paid: true } }));
    const agent = await payer(endpoint);
    const accepted = await call(agent.agent_uri, {
      capabilityUri: 'capability://acme/pay',
      parameters: { amount: 50_000, payee: 'Globex' },
    });
    expect(accepted.body).toMatchObject({
      status: 'queued',
      approval_required: true,
      approval_id: expect.stringMatching(/^apr_/),
      risk_level: 'high',
    });
    const approvalId = accepted.body.approval_id;
    const approval = await api('GET', `/v1/approvals/${approvalId}`);
    expect(approval.body).toMatchObject({
      status: 'pending',
      execution_id: accepted.body.id,
      approver_passport_id: CFO,
      agent_id: agent.agent_uri,
      request_data: { amount: 50_000, payee: 'Globex' },
    });
    expect(endpoint.requests).toHaveLength(0);

    const tooMuch = await (
      await asPerson(stack, CFO)
    )('POST', `/v1/approvals/${approvalId}/respond`, {
      json: { decision: 'approved', modified_params: { amount: 200_000 } },
    });
    expectProblem(tooMuch, 400, 'validation_failed');
    await (
      await asPerson(stack, CFO)
    )('POST', `/v1/approvals/${approvalId}/respond`, {
      json: { decision: 'approved', modified_params: { amount: 20_000 } },
    });
    const done = await finished(accepted.body.id);
    expect(done).toMatchObject({
      status: 'completed',
      parameters: { amount: 20_000, payee: 'Globex' },
      result_json: { paid: true },
    });
    expect(endpoint.requests.map((r) => r.body.parameters)).toEqual([{ amount: 20_000, payee: 'Globex' }]);
  });

  it('never calls the agent when the approval is rejected', async () => {
    const endpoint = await party();
    const agent = await payer(endpoint);
    const accepted = await call(agent.agent_uri, {
      capabilityUri: 'capability://acme/pay',
      parameters: { amount: 50_000 },
    });
    await (
      await asPerson(stack, CFO)
    )('POST', `/v1/escalations/${accepted.body.approval_id}/respond`, {
      json: { decision: 'request_changes', notes: 'split it' },
    });
    const done = await finished(accepted.body.id);
    expect(done).toMatchObject({
      status: 'cancelled',
      error_json: { type: 'approval_rejected', approval_id: accepted.body.approval_id },
    });
    expect(endpoint.requests).toHaveLength(0);
  });

  it('cancels the approval with the execution', async () => {
    const agent = await payer(await party());
    const accepted = await call(agent.agent_uri, {
      capabilityUri: 'capability://acme/pay',
      parameters: { amount: 50_000 },
    });
    const cancelled = await api('POST', `/v1/executions/${accepted.body.id}/cancel`, {
      json: { reason: 'changed my mind' },
    });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: principalDid('sub:test-user') });
    const approval = await eventually(
      () => api('GET', `/v1/approvals/${accepted.body.approval_id}`),
      (reply) => reply.body.status !== 'pending',
    );
    expect(approval.body).toMatchObject({ status: 'cancelled', cancel_reason: `${accepted.body.id} was cancelled` });
  });

  it('runs a low-risk call at once', async () => {
    const endpoint = await party(() => ({ status: 200, body: {} }));
    const agent = await payer(endpoint);
    const accepted = await call(agent.agent_uri, { capabilityUri: 'capability://pay', parameters: { amount: 50 } });
    expect(accepted.body).toMatchObject({
      approval_required: false,
      approval_id: null,
      capability_uri: 'capability://acme/pay',
    });
    expect((await finished(accepted.body.id)).status).toBe('completed');
  });
});

describe('deployments and the legacy call by agent id', () => {
  it('reaches the version deployed to production, with the deployment’s parameters as defaults', async () => {
    const v1 = await party(() => ({ status: 200, body: { version: 1 } }));
    const v2 = await party(() => ({ status: 200, body: { version: 2 } }));
    const first = await admin('POST', '/v1/agents', {
      json: {
        agent_uri: 'agent://default/writer@1.0.0',
        endpoint_url: `${v1.url}/run`,
        capabilities: ['capability://acme/write'],
      },
    });
    await admin('POST', '/v1/agents', {
      json: {
        agent_uri: 'agent://default/writer@2.0.0',
        endpoint_url: `${v2.url}/run`,
        capabilities: ['capability://acme/write'],
      },
    });
    const byId = first.body.agent_id;

    const before = await api('POST', `/v1/agents/${byId}/call`, {
      json: { task: 'write', parameters: { topic: 'tea' } },
    });
    expect(before.status).toBe(202);
    expect((await finished(before.body.id)).result_json).toEqual({ version: 1 });

    expectProblem(
      await admin('POST', `/v1/agents/${byId}/deployments`, { json: { environment: 'production', version: '3.0.0' } }),
      422,
      'agent_version_not_registered',
    );
    const deployed = await admin('POST', `/v1/agents/${byId}/deployments`, {
      json: { environment: 'production', version: '2.0.0', parameters: { tone: 'dry', topic: 'coffee' } },
    });
    expect(deployed.status).toBe(201);
    expect(deployed.body).toMatchObject({
      environment: 'production',
      version: '2.0.0',
      agent_uri: 'agent://default/writer@2.0.0',
    });
    expect((await api('GET', `/v1/agents/${byId}`)).body.deployments).toEqual([
      expect.objectContaining({ environment: 'production', version: '2.0.0' }),
    ]);

    const after = await api('POST', `/v1/agents/${byId}/call`, {
      json: { task: 'capability://acme/write', parameters: { topic: 'tea' } },
    });
    expect((await finished(after.body.id)).result_json).toEqual({ version: 2 });
    expect(v2.requests[0]!.body).toMatchObject({
      agent_uri: 'agent://default/writer@2.0.0',
      parameters: { tone: 'dry', topic: 'tea' },
      requester_passport_id: principalDid('sub:test-user'),
    });
    expectProblem(
      await api('POST', `/v1/agents/${byId}/call`, { json: { task: 'sing' } }),
      422,
      'capability_not_matched',
    );
  });
});

describe('GET /v1/executions', () => {
  it('filters by status and agent (id or URI)', async () => {
    const endpoint = await party((request) =>
      request.body.parameters.fail ? { status: 400 } : { status: 200, body: {} },
    );
    const agent = await register(endpoint);
    const ok = (await call(agent.agent_uri)).body.id;
    const bad = (await call(agent.agent_uri, { parameters: { fail: true } })).body.id;
    await finished(ok);
    await finished(bad);
    const byId = await api('GET', `/v1/executions?agent_id=${agent.agent_id}`);
    expect(byId.body.data.map((e: { id: string }) => e.id)).toEqual([bad, ok]);
    const failed = await api('GET', `/v1/executions?agent_id=${encodeURIComponent(agent.agent_uri)}&status=failed`);
    expect(failed.body).toMatchObject({
      total_count: 1,
      data: [expect.objectContaining({ id: bad, status: 'failed' })],
    });
    expectProblem(await api('GET', '/v1/executions/exe_unknown'), 404, 'execution_not_found');
  });

  it('leaves a ledger that verifies against its signed checkpoints', async () => {
    expect(await verifyStoredLedger(stack.database.db)).toMatchObject({ ok: true, problems: [] });
  });
});

describe('callback signing secrets', () => {
  it('rotates: the new secret is shown once, the old one keeps signing for the grace period', async () => {
    const me = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read'], 'rotator'));
    const first = await me('POST', '/v1/callback-secrets');
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^cbs_/),
      secret: expect.stringMatching(/^whsec_/),
      previous_secrets_expire_at: null,
    });
    const second = await me('POST', '/v1/callback-secrets');
    expect(Date.parse(second.body.previous_secrets_expire_at) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    const listed = await me('GET', '/v1/callback-secrets');
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([second.body.id, first.body.id]);
    expect(JSON.stringify(listed.body)).not.toContain(first.body.secret);
  });

  it('stores each secret sealed, never in the clear', async () => {
    const me = client(stack.baseUrl, await stack.token(['platform:write'], 'sealer'));
    const created = await me('POST', '/v1/callback-secrets');
    const row = await stack.database.db('callback_signing_secrets').where({ secret_id: created.body.id }).first();
    expect(row.sealed_secret).toMatch(/^v1\.[0-9a-f]{16}\./);
    expect(JSON.stringify(row)).not.toContain(created.body.secret.slice(6));
    expect(row.secret_hint).toBe(`${created.body.secret.slice(0, 10)}…`);
  });

  it('answers 503 when the deployment has no secrets key to seal with, and stores nothing', async () => {
    const app = await startExtraApp(stack, { config: { SECRETS_ENCRYPTION_KEY: undefined } });
    try {
      const reply = await request(app.baseUrl, 'POST', '/v1/callback-secrets', {
        token: await stack.token(['platform:write'], 'keyless'),
      });
      expectProblem(reply, 503, 'secrets_unavailable');
      expect(await stack.database.db('callback_signing_secrets').where({ principal: 'sub:keyless' })).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
