import { eventually } from '../support/eventually';
import { call as request, client, expectProblem } from '../support/http';
import { LOCAL_PARTIES_ENV, startRemoteParty, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

/**
 * `/v1/agents/call` asks the capabilities matcher about the agent it names when the agent's registration does
 * not offer the requested capability: a live grant of the agent's satisfies it, directly or by implication (a
 * cardiologist is a physician), and only the calling organization's own implications apply.
 */
let stack: Stack;
let party: RemoteParty;
let admin: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
const OTHER_SLUG = 'agent-implications';
const ADA = 'did:web:acme.example:people:ada';

beforeAll(async () => {
  stack = await startStack({ ...LOCAL_PARTIES_ENV });
  party = await startRemoteParty();
  const scopes = ['platform:admin', 'platform:write', 'platform:read'];
  admin = client(stack.baseUrl, await stack.token(scopes));
  const org = await request(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:agent-implications.example', name: 'Agent implications', slug: OTHER_SLUG },
  });
  expect(org.status).toBe(201);
  other = client(stack.baseUrl, await stack.token(scopes, 'bob', org.body.organization_id as string));
  for (const as of [admin, other])
    expect((await as('POST', '/v1/passports', { json: { type: 'organization', name: 'Org' } })).status).toBe(201);
});
afterAll(async () => {
  await party?.close();
  await stack?.stop();
});

const define = (as: typeof admin, name: string, implies: string[] = []) =>
  as('POST', '/v1/capabilities', { json: { capabilityId: name, name, description: name, implies } });

/** An agent Passport of the organization `as` acts in, registered offering only summarize, and granted `granted`. */
async function grantedAgent(as: typeof admin, org: string, name: string, granted: string) {
  const passport = await as('POST', '/v1/passports', { json: { type: 'agent', name } });
  expect(passport.status).toBe(201);
  const did = passport.body.data.did as string;
  const agentUri = `agent://${org}/${name}@1.0.0`;
  const registered = await as('POST', '/v1/agents', {
    json: {
      agent_uri: agentUri,
      endpoint_url: `${party.url}/run`,
      capabilities: [`capability://${org}/summarize`],
      passport_id: did,
    },
  });
  expect(registered.status).toBe(201);
  const grant = await as('POST', '/v1/capability-grants', {
    json: { agentDID: did, capabilities: [`capability://${granted}`], weight: 0.9 },
  });
  expect(grant.status).toBe(201);
  return { agentUri, grantId: grant.body.data[0].grantId as string };
}

const callAs = (as: typeof admin, agentUri: string, capabilityUri: string) =>
  as('POST', '/v1/agents/call', { json: { agentUri, capabilityUri, passport: ADA, parameters: {} } });

describe('POST /v1/agents/call following implications', () => {
  it('calls an agent granted cardiologist for physician, not for what nothing it holds implies, nor once revoked', async () => {
    expect((await define(admin, 'physician_c')).status).toBe(201);
    expect((await define(admin, 'cardiologist_c', ['physician_c'])).status).toBe(201);
    expect((await define(admin, 'triage_c')).status).toBe(201);
    const { agentUri, grantId } = await grantedAgent(admin, 'default', 'cardio', 'cardiologist_c');

    const accepted = await callAs(admin, agentUri, 'capability://physician_c');
    expect(accepted.status).toBe(202);
    const invoked = await eventually(
      async () => party.requests.filter((r) => r.body?.agent_uri === agentUri),
      (requests) => requests.length > 0,
    );
    expect(invoked[0]!.body).toMatchObject({ capability_uri: 'capability://physician_c' });
    expect((await callAs(admin, agentUri, 'capability://default/physician_c')).status).toBe(202);
    expect((await callAs(admin, agentUri, 'capability://default/summarize')).status).toBe(202);
    expectProblem(await callAs(admin, agentUri, 'capability://triage_c'), 422, 'capability_not_matched');

    const revoked = await admin('POST', `/v1/capability-grants/${grantId}/revoke`, { json: { reason: 'moved' } });
    expect(revoked.status).toBe(201);
    expectProblem(await callAs(admin, agentUri, 'capability://physician_c'), 422, 'capability_not_matched');
  });

  it('never applies another organization’s implications, and applies each organization’s own', async () => {
    // The other organization's gp_c implies generalist_c; the default organization's gp_c implies nothing.
    expect((await define(other, 'gp_c', ['generalist_c'])).status).toBe(201);
    expect((await define(admin, 'gp_c')).status).toBe(201);
    const here = await grantedAgent(admin, 'default', 'gp-here', 'gp_c');
    const there = await grantedAgent(other, OTHER_SLUG, 'gp-there', 'gp_c');

    expectProblem(await callAs(admin, here.agentUri, 'capability://generalist_c'), 422, 'capability_not_matched');
    expectProblem(
      await callAs(admin, here.agentUri, `capability://${OTHER_SLUG}/generalist_c`),
      422,
      'capability_not_matched',
    );
    expect((await callAs(other, there.agentUri, 'capability://generalist_c')).status).toBe(202);
    expectProblem(await callAs(other, here.agentUri, 'capability://gp_c'), 404, 'agent_not_found');
  });
});
