import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { eventually } from '../support/eventually';
import { call, client, expectProblem } from '../support/http';
import { LOCAL_PARTIES_ENV, startRemoteParty, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

/*
 * Platform agents belong to one organization: their URIs' org segment names it, and their deployments (what
 * a call by agent id reaches, with which default parameters) are read within it only.
 */
let stack: Stack;
let adminA: ReturnType<typeof client>;
let adminB: ReturnType<typeof client>;
let organizationB = '';
let endpoint: RemoteParty;

beforeAll(async () => {
  stack = await startStack(LOCAL_PARTIES_ENV);
  endpoint = await startRemoteParty(() => ({ status: 200, body: { done: true } }));
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:beta.example', name: 'Beta', slug: 'beta' },
  });
  expect(created.status).toBe(201);
  organizationB = created.body.organization_id;
  adminA = client(stack.baseUrl, await stack.token(['platform:admin', 'platform:write', 'platform:read'], 'alice'));
  adminB = client(
    stack.baseUrl,
    await stack.token(['platform:admin', 'platform:write', 'platform:read'], 'bob', organizationB),
  );
});
afterAll(async () => {
  await endpoint?.close();
  await stack?.stop();
});

/** An agent id of the registry's form that no URI of these tests derives to. */
const SQUATTED_ID = `agt_${'5a'.repeat(12)}`;
const agent = (agent_uri: string) => ({
  agent_uri,
  endpoint_url: `${endpoint.url}/run`,
  capabilities: ['capability://write'],
});

describe('the org segment of an agent URI', () => {
  it('is the caller’s organization’s slug or organization id', async () => {
    expect((await adminA('POST', '/v1/agents', { json: agent('agent://default/namer@1.0.0') })).status).toBe(201);
    expect(
      (await adminA('POST', '/v1/agents', { json: agent(`agent://${DEFAULT_ORGANIZATION_ID}/namer@1.0.0`) })).status,
    ).toBe(201);
    expect((await adminB('POST', '/v1/agents', { json: agent('agent://beta/namer@1.0.0') })).status).toBe(201);
    expect((await adminB('POST', '/v1/agents', { json: agent(`agent://${organizationB}/namer@1.0.0`) })).status).toBe(
      201,
    );
  });

  it('refuses a URI in another organization’s name, or in no organization’s, so no one squats another’s agents', async () => {
    for (const uri of [
      'agent://default/squat@1.0.0',
      `agent://${DEFAULT_ORGANIZATION_ID}/squat@1.0.0`,
      'agent://acme/squat@1.0.0',
    ]) {
      const refused = await adminB('POST', '/v1/agents', { json: agent(uri) });
      expectProblem(refused, 403, 'agent_uri_foreign_organization');
      expect(refused.body.detail).toContain('agent://beta/squat@1.0.0');
    }
    expectProblem(
      await adminA('POST', '/v1/agents', { json: agent('agent://beta/squat@1.0.0') }),
      403,
      'agent_uri_foreign_organization',
    );
    // A's name is still free for A.
    expect((await adminA('POST', '/v1/agents', { json: agent('agent://default/squat@1.0.0') })).status).toBe(201);
  });
});

describe('deployments', () => {
  it('are read within the organization only: a squatter’s deployment of the same org/name is neither shown nor called', async () => {
    const writer = await adminA('POST', '/v1/agents', { json: agent('agent://default/writer@1.0.0') });
    expect(writer.status).toBe(201);
    await adminA('POST', '/v1/agents', { json: agent('agent://default/writer@2.0.0') });
    // A squatter's rows as they could be written before agent URIs were bound to their organization.
    const { db } = stack.database;
    await db('platform_agents').insert({
      agent_id: SQUATTED_ID,
      agent_uri: 'agent://default/writer@9.0.0',
      org: 'default',
      name: 'writer',
      version: '9.0.0',
      passport_id: 'did:web:beta.example:agents:writer',
      capabilities: ['capability://write'],
      endpoint_url: 'http://127.0.0.1:9/run',
      status: 'active',
      approval_policy: JSON.stringify({ require_approval_at: 'high' }),
      timeout_seconds: 30,
      max_attempts: 1,
      created_by: 'sub:bob',
      organization_id: organizationB,
    });
    await db('platform_agent_deployments').insert({
      deployment_id: 'dep_squatted',
      organization_id: organizationB,
      org: 'default',
      name: 'writer',
      environment: 'production',
      version: '9.0.0',
      agent_id: SQUATTED_ID,
      parameters: JSON.stringify({ tone: 'squatter', exfiltrate: true }),
      deployed_by: 'sub:bob',
    });

    expect((await adminA('GET', `/v1/agents/${writer.body.agent_id}`)).body.deployments).toEqual([]);
    const before = await adminA('POST', `/v1/agents/${writer.body.agent_id}/call`, {
      json: { task: 'write', parameters: { topic: 'tea' } },
    });
    expect(before.status).toBe(202);
    expect(
      await eventually(
        () => adminA('GET', `/v1/executions/${before.body.id}`),
        (reply) => reply.body.status === 'completed',
      ).then((reply) => reply.body.agent_id),
    ).toBe(writer.body.agent_id);
    expect(endpoint.requests.at(-1)!.body).toMatchObject({
      agent_uri: 'agent://default/writer@1.0.0',
      parameters: { topic: 'tea' },
    });
    expect(endpoint.requests.at(-1)!.body.parameters).not.toHaveProperty('tone');

    const deployed = await adminA('POST', `/v1/agents/${writer.body.agent_id}/deployments`, {
      json: { environment: 'production', version: '2.0.0', parameters: { tone: 'dry' } },
    });
    expect(deployed.status).toBe(201);
    expect((await adminA('GET', `/v1/agents/${writer.body.agent_id}`)).body.deployments).toEqual([
      expect.objectContaining({
        deployment_id: deployed.body.deployment_id,
        version: '2.0.0',
        deployed_by: 'sub:alice',
      }),
    ]);
    const after = await adminA('POST', `/v1/agents/${writer.body.agent_id}/call`, {
      json: { task: 'write', parameters: { topic: 'tea' } },
    });
    await eventually(
      () => adminA('GET', `/v1/executions/${after.body.id}`),
      (reply) => reply.body.status === 'completed',
    );
    expect(endpoint.requests.at(-1)!.body).toEqual(
      expect.objectContaining({ agent_uri: 'agent://default/writer@2.0.0', parameters: { tone: 'dry', topic: 'tea' } }),
    );

    // And the squatter sees only its own deployment of its own agent.
    expect((await adminB('GET', `/v1/agents/${SQUATTED_ID}`)).body.deployments).toEqual([
      expect.objectContaining({ deployment_id: 'dep_squatted', deployed_by: 'sub:bob' }),
    ]);
  });
});
