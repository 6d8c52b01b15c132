import { eventually } from '../support/eventually';
import { call, client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { LOCAL_PARTIES_ENV, startRemoteParty, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

/**
 * An agent registered through POST /v1/agents is granted what its registration offers, keyed by its DID
 * (platform_agents.passport_id): the match API finds it with its status and load, the workforce's choice
 * (POST /v1/tasks) and /v1/agents/call ask the same matcher, and a registration grant revoked through the
 * grants API stops the offered URI from serving.
 */
let stack: Stack;
let party: RemoteParty;
let admin: ReturnType<typeof client>;
let release: () => void = () => undefined;
const ADA = 'did:web:acme.example:people:ada';
const uri = (name: string) => `capability://default/${name}`;

beforeAll(async () => {
  stack = await startStack({ ...LOCAL_PARTIES_ENV });
  // The agent's endpoint answers once the test releases it, so its execution stays open meanwhile.
  party = await startRemoteParty(
    () => new Promise((resolve) => (release = () => resolve({ status: 200, body: { ok: true } }))),
  );
  admin = client(
    stack.baseUrl,
    await stack.token(['platform:admin', 'platform:write', 'platform:read', 'orch:admin', 'orch:write', 'orch:read']),
  );
  expect((await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Default' } })).status).toBe(201);
});
afterAll(async () => {
  release();
  await party?.close();
  await stack?.stop();
});

async function registered(name: string, capabilities: string[], passport_id?: string) {
  const reply = await admin('POST', '/v1/agents', {
    json: {
      agent_uri: `agent://default/${name}@1.0.0`,
      endpoint_url: `${party.url}/run`,
      capabilities,
      approval_policy: { require_approval_at: 'never' },
      ...(passport_id ? { passport_id } : {}),
    },
  });
  expect(reply.status).toBe(201);
  return { agent_id: reply.body.agent_id as string, agentUri: `agent://default/${name}@1.0.0` };
}

const match = async (name: string) =>
  (await admin('POST', '/v1/capabilities/match', { json: { requiredCapabilities: [uri(name)] } })).body.matches as {
    did: string;
    subjectType: string;
    openAssignments: number;
  }[];
const grantsOf = async (did: string) =>
  (await admin('GET', `/v1/capability-grants?subject_did=${encodeURIComponent(did)}&live=true`)).body.data as {
    grantId: string;
    capabilityId: string;
  }[];
const callAs = (agentUri: string, capabilityUri: string) =>
  admin('POST', '/v1/agents/call', { json: { agentUri, capabilityUri, passport: ADA, parameters: {} } });

describe('an agent registered through the API', () => {
  it('is granted its offered capabilities by DID and matched with its status and load', async () => {
    const passport = await admin('POST', '/v1/passports', { json: { type: 'agent', name: 'Echo' } });
    const did = passport.body.data.did as string;
    const echo = await registered('echo', [uri('echo_g')], did);
    expect((await admin('GET', `/v1/agents/${echo.agent_id}`)).body.passportId).toBe(did);
    expect((await grantsOf(did)).map((g) => g.capabilityId)).toEqual([uri('echo_g')]);
    const passportId = passport.body.data.passportId as string;
    const held = await admin('GET', `/v1/passports/${passportId}/capabilities`);
    expect(held.body.capabilities).toEqual([expect.objectContaining({ capabilityId: uri('echo_g'), weight: 1 })]);

    expect(await match('echo_g')).toEqual([expect.objectContaining({ did, subjectType: 'agent', openAssignments: 0 })]);
    expect((await callAs(echo.agentUri, uri('echo_g'))).status).toBe(202);
    await eventually(
      () => match('echo_g'),
      (matches) => matches[0]?.openAssignments === 1,
    );
    release();
    await eventually(
      () => match('echo_g'),
      (matches) => matches[0]?.openAssignments === 0,
    );

    expect((await admin('PATCH', `/v1/agents/${echo.agent_id}`, { json: { status: 'inactive' } })).status).toBe(200);
    expect(await match('echo_g')).toEqual([]);
    expect((await admin('PATCH', `/v1/agents/${echo.agent_id}`, { json: { status: 'active' } })).status).toBe(200);
    expect((await match('echo_g')).map((m) => m.did)).toEqual([did]);
  });

  it('is granted under its default DID when it names no Passport, and a changed offer re-syncs', async () => {
    const plain = await registered('plain', [uri('plain_g'), uri('other_g')]);
    const did = (await admin('GET', `/v1/agents/${plain.agent_id}`)).body.passportId as string;
    expect(did).toBe('did:web:handoff.local:agents:default:plain');
    expect((await grantsOf(did)).map((g) => g.capabilityId).sort()).toEqual([uri('other_g'), uri('plain_g')]);
    expect(
      (await admin('PATCH', `/v1/agents/${plain.agent_id}`, { json: { capabilities: [uri('plain_g')] } })).status,
    ).toBe(200);
    expect((await grantsOf(did)).map((g) => g.capabilityId)).toEqual([uri('plain_g')]);
    expect((await match('plain_g')).map((m) => m.did)).toEqual([did]);
  });

  it('no longer serves an offered URI once its registration grant is revoked through the grants API', async () => {
    const revoked = await registered('revoked', [uri('revoked_g')]);
    const did = 'did:web:handoff.local:agents:default:revoked';
    const [grant] = await grantsOf(did);
    const revoke = await admin('POST', `/v1/capability-grants/${grant!.grantId}/revoke`, { json: { reason: 'test' } });
    expect(revoke.status).toBe(201);
    const refused = await callAs(revoked.agentUri, uri('revoked_g'));
    expectProblem(refused, 422, 'capability_not_matched');
    expect(refused.body.detail).toContain('holds no live grant');
    expect(await match('revoked_g')).toEqual([]);
  });
});

describe('delegating to a registered agent', () => {
  it('finds the agent’s Passport by the DID its registration holds', async () => {
    const passport = await admin('POST', '/v1/passports', { json: { type: 'agent', name: 'Delegate' } });
    const did = passport.body.data.did as string;
    const { agent_id } = await registered('delegate', [uri('delegate_g')], did);
    const person = await signedInPerson(stack);
    const parent = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
      json: { subject_token: person.sessionToken, capabilities: ['agents:read', 'delegation:write'] },
    });
    expect(parent.status).toBe(201);
    const reply = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
      token: parent.body.token as string,
      json: { agentId: agent_id, capabilities: ['agents:read'], duration_seconds: 600 },
    });
    expect(reply).toMatchObject({ status: 201, body: { did: person.did, agent_did: did } });
  });
});

describe('the workforce’s agent choice (POST /v1/tasks)', () => {
  it('asks the one matcher: an agent granted what implies the need is chosen, a revoked one is not', async () => {
    for (const [name, implies] of [
      ['physician_w', []],
      ['cardiologist_w', [uri('physician_w')]],
    ] as const)
      expect(
        (
          await admin('POST', '/v1/capabilities', {
            json: { capabilityId: uri(name), name, description: name, implies },
          })
        ).status,
      ).toBe(201);
    const passport = await admin('POST', '/v1/passports', { json: { type: 'agent', name: 'Cardio' } });
    const did = passport.body.data.did as string;
    const cardio = await registered('cardio', [uri('summarize_w')], did);
    const grant = await admin('POST', '/v1/capability-grants', {
      json: { agentDID: did, capabilities: [uri('cardiologist_w')], weight: 0.9 },
    });
    expect(grant.status).toBe(201);
    const task = (title: string) =>
      admin('POST', '/v1/tasks', {
        json: {
          title,
          task_type: 'triage',
          required_capabilities: [{ capability_id: 'physician_w', min_weight: 0.5 }],
        },
      });
    const chosen = await task('Read the ECG');
    expect(chosen.status).toBe(201);
    expect(chosen.body.agent_uri).toBe(cardio.agentUri);
    const grantId = grant.body.data[0].grantId as string;
    expect((await admin('POST', `/v1/capability-grants/${grantId}/revoke`, { json: {} })).status).toBe(201);
    const unchosen = await task('Read another ECG');
    expect(unchosen.status).toBe(201);
    expect(unchosen.body.agent_uri).toBeNull();
  });
});
