import { randomUUID } from 'node:crypto';
import { findApprovalById } from '../../db/approvals';
import { findPlatformAgentByUri } from '../../db/platform-agents';
import { platformSettings } from '../../app/platform';
import { createApproval, type PlatformServiceDeps } from '../../services/approvals/approvals';
import { respondToApproval } from '../../services/approvals/answers';
import { createDag } from '../../services/dags/dags';
import { callAgent } from '../../services/executions/call';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { eventually } from '../support/eventually';
import { client } from '../support/http';
import { startRemoteParty, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

// What PostgreSQL cannot store: NUL in text or jsonb, a lone surrogate in jsonb. These reach the services
// directly here, as they would if a caller got past the API's validation.
const NUL = 'before\u0000after';
const LONE_SURROGATE = 'before\ud800after';
const AGENT = 'agent://default/garbler@1.0.0';
const ADA = 'did:web:acme.example:people:ada';
const BOB = 'did:web:acme.example:people:bob';
/** Ada signed in with a device key, as authenticateBearer gives her session. */
const ADA_SIGNED_IN = {
  id: 'passport:pp_ada',
  kind: 'session',
  organization_id: 'org_default',
  scopes: [],
  actor: { passport_id: 'pp_ada', did: ADA, credential: { type: 'device_key' as const, id: 'kid_ada' } },
};

let stack: Stack;
let api: ReturnType<typeof client>;
let deps: PlatformServiceDeps;
let endpoint: RemoteParty;
let answer: Record<string, unknown>;

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
  deps = {
    db: stack.database.db,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    settings: platformSettings(stack.config),
  };
  endpoint = await startRemoteParty(() => ({ status: 200, body: answer }));
  const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  const registered = await admin('POST', '/v1/agents', {
    json: {
      agent_uri: AGENT,
      endpoint_url: `${endpoint.url}/run`,
      capabilities: ['capability://acme/summarize'],
      approval_policy: { require_approval_at: 'never' },
    },
  });
  expect(registered.status).toBe(201);
});
afterAll(async () => {
  await endpoint?.close();
  await stack?.stop();
});
beforeEach(() => {
  answer = { summary: 'short' };
});

const newId = (prefix: string) => `${prefix}_${randomUUID()}`;

describe('a workflow whose data Postgres cannot store, as its callers see it', () => {
  it('refuses to create an approval request holding a NUL: invalid_data, at once, and no request is left', async () => {
    const approval_id = newId('apr');
    const outcome = await createApproval(
      deps,
      { approval_id, requested_by: 'sub:test' },
      { requester_passport_id: ADA, action_description: NUL, request_data: {}, alternatives: [] },
    );
    // Refused before Postgres sees it (the request is opened in the request path), naming where.
    expect(outcome).toEqual({
      ok: false,
      code: 'invalid_data',
      detail: expect.stringContaining('$.action_description'),
    });
    expect(await findApprovalById(stack.database.db, 'org_default', approval_id)).toBeUndefined();
  });

  it('refuses an answer holding a NUL, and the request stays pending for a good one', async () => {
    const approval_id = newId('apr');
    // Another person asks: a requester may never answer their own request.
    const created = await createApproval(
      deps,
      { approval_id, requested_by: 'sub:test' },
      { requester_passport_id: BOB, action_description: 'Pay invoice 42', request_data: {}, alternatives: [] },
    );
    expect(created).toMatchObject({ ok: true, approval: { status: 'pending' } });
    const refused = await respondToApproval(deps, approval_id, ADA_SIGNED_IN, {
      decision: 'rejected',
      response_kind: 'rejected',
      comment: NUL,
    });
    expect(refused).toEqual({ ok: false, code: 'invalid_data', detail: expect.stringContaining('$.comment') });
    expect(await api('GET', `/v1/approvals/${approval_id}`)).toMatchObject({
      status: 200,
      body: { status: 'pending', failure: null },
    });
    expect(
      await respondToApproval(deps, approval_id, ADA_SIGNED_IN, { decision: 'approved', response_kind: 'approved' }),
    ).toMatchObject({ ok: true, approval: { status: 'approved' } });
  });

  it('refuses an agent call whose parameters hold a lone surrogate: invalid_data, at once', async () => {
    const execution_id = newId('exe');
    const agent = await findPlatformAgentByUri(stack.database.db, DEFAULT_ORGANIZATION_ID, AGENT);
    const outcome = await callAgent(
      deps,
      { execution_id, requested_by: 'sub:test', organization_id: DEFAULT_ORGANIZATION_ID },
      agent,
      { capability_uri: 'capability://acme/summarize', passport: ADA, parameters: { text: LONE_SURROGATE } },
    );
    expect(outcome).toEqual({ ok: false, code: 'invalid_data', detail: expect.stringContaining('lone surrogate') });
  });

  it('refuses to run a DAG whose node input holds a NUL: invalid_data, at once', async () => {
    const workflow_id = newId('wfl');
    const outcome = await createDag(
      deps,
      { workflow_id, requested_by: 'sub:test', organization_id: DEFAULT_ORGANIZATION_ID },
      {
        name: 'garble',
        requester_passport_id: ADA,
        nodes: [
          {
            id: 'a',
            node_type: 'agent',
            node_name: 'summarize',
            input: { text: NUL },
            visual_metadata: {},
            agent: { agentUri: AGENT, capabilityUri: 'capability://acme/summarize' },
          },
        ],
        edges: [],
      },
    );
    expect(outcome).toEqual({
      ok: false,
      code: 'invalid_data',
      detail: expect.stringContaining('Postgres cannot store a value'),
    });
  });

  it('shows an execution whose agent answered with a NUL as failed with invalid_data, and its DAG as failed', async () => {
    answer = { summary: NUL };
    const call = await api('POST', '/v1/agents/call', {
      json: { agentUri: AGENT, capabilityUri: 'capability://acme/summarize', passport: ADA, parameters: { text: 'x' } },
    });
    expect(call.status).toBe(202);
    const execution = await eventually(
      () => api('GET', `/v1/executions/${call.body.id}`),
      (reply) => reply.body.status !== 'queued' && reply.body.status !== 'processing',
      { timeoutMs: 20_000 },
    );
    expect(execution.body).toMatchObject({
      status: 'failed',
      error_json: { type: 'invalid_data', message: expect.stringContaining('Postgres cannot store a value') },
      completed_at: expect.any(String),
    });

    const dag = await api('POST', '/v1/workflows', {
      json: {
        name: 'garble',
        nodes: [
          {
            id: 'a',
            node_type: 'agent',
            node_name: 'summarize',
            input: { text: 'x' },
            agent: { agentUri: AGENT, capabilityUri: 'capability://acme/summarize' },
          },
        ],
        edges: [],
      },
    });
    expect(dag.status).toBe(201);
    const run = await eventually(
      () => api('GET', `/v1/workflows/${dag.body.workflow_id}`),
      (reply) => reply.body.status === 'completed' || reply.body.status === 'failed',
      { timeoutMs: 20_000 },
    );
    expect(run.body).toMatchObject({ status: 'failed' });
  });
});
