import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { client, expectProblem } from '../support/http';
import { delegateToNewAgent, signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;
let alice: SignedInPerson;
let asAlice: ReturnType<typeof client>;
let bob: SignedInPerson;
let asBob: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  alice = await signedInPerson(stack, { name: 'Alice' });
  asAlice = client(stack.baseUrl, alice.sessionToken);
  bob = await signedInPerson(stack, { name: 'Bob' });
  asBob = client(stack.baseUrl, bob.sessionToken);
});

/** An agent Passport holding a delegation token from `from` with the given capabilities. */
async function agentOf(from: SignedInPerson, capabilities: string[]) {
  const delegated = await delegateToNewAgent(stack, from, capabilities);
  return { ...delegated, as: client(stack.baseUrl, delegated.token) };
}

const asking = (requester: string) => ({
  requester_passport_id: requester,
  action_description: 'Pay invoice 42',
  request_data: { amount: 25_000 },
});

async function open(as: ReturnType<typeof client>, requester: string): Promise<string> {
  const created = await as('POST', '/v1/approvals', { json: asking(requester) });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function requestedActor(approvalId: string): Promise<Record<string, unknown>> {
  const [body] = await stack.database
    .db('ledger_entries')
    .where({ subject_id: approvalId, step_id: 'requested' })
    .pluck('body');
  return JSON.parse(body as string).actor as Record<string, unknown>;
}

describe('separation of duties on a request that names no approver', () => {
  it('refuses the requester’s session and their agent’s delegation token; another person answers', async () => {
    const id = await open(asAlice, alice.did);
    expectProblem(
      await asAlice('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } }),
      403,
      'requester_may_not_answer',
    );
    expectProblem(
      await asAlice('POST', `/v1/escalations/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'requester_may_not_answer',
    );
    const alicesAgent = await agentOf(alice, [HUMAN_ACT_CAPABILITIES.respond_approval]);
    const byAgent = await alicesAgent.as('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } });
    expectProblem(byAgent, 403, 'requester_may_not_answer');
    expect(byAgent.body.detail).toContain(alicesAgent.agent.did);
    expect((await admin('GET', `/v1/approvals/${id}`)).body.status).toBe('pending');

    const answered = await asBob('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', comment: 'fine' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'approved', responded_by: bob.did });
  });

  it('refuses the person who asked through their agent, whatever requester the body names', async () => {
    const alicesAgent = await agentOf(alice, ['approvals:request']);
    const id = await open(alicesAgent.as, 'did:web:acme.example:agents:payer');
    expectProblem(
      await asAlice('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } }),
      403,
      'requester_may_not_answer',
    );
    expect((await asBob('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'rejected' } })).status).toBe(200);
  });

  it('refuses the person a token with no Passport named as requester', async () => {
    const id = await open(admin, alice.did);
    expectProblem(
      await asAlice('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } }),
      403,
      'requester_may_not_answer',
    );
    expect((await asBob('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } })).status).toBe(200);
  });
});

describe('the requested record names the requester as the caller proved it', () => {
  it('a person signed in is human, with their Passport and credential', async () => {
    const id = await open(asAlice, alice.did);
    expect(await requestedActor(id)).toEqual({
      type: 'human',
      did: alice.did,
      passport_id: alice.passport_id,
      credential: { type: 'device_key', id: alice.kid },
    });
  });

  it('an agent holding a person’s delegation is an agent, even when the body names the person', async () => {
    const alicesAgent = await agentOf(alice, ['approvals:request']);
    const id = await open(alicesAgent.as, alice.did);
    expect(await requestedActor(id)).toEqual({
      type: 'ai_agent',
      did: alicesAgent.agent.did,
      agent_id: alicesAgent.agent.did,
      delegation_token_id: alicesAgent.token_id,
    });
  });

  it('a personal access token is no person: an agent, named by its principal', async () => {
    const pat = await mintPersonalAccessToken(stack.database.db, {
      name: 'payments-bot',
      scopes: ['platform:write'],
      organizationId: 'org_default',
    });
    const id = await open(client(stack.baseUrl, pat.token), alice.did);
    const principal = { kind: 'personal_access_token', id: `pat:${pat.token_id}` };
    expect(await requestedActor(id)).toEqual({ type: 'ai_agent', instance_id: principal.id, principal });
  });
});
