import { HUMAN_ACT_CAPABILITY_NAMES, SIGNED_IN_PERSON_CAPABILITIES } from '../../domain/identity/capabilities';
import { eventually } from '../support/eventually';
import { call, client, expectProblem, type CallResult } from '../support/http';
import { delegateToNewAgent, signedInPerson, type SignedInPerson } from '../support/identity';
import { signedInReviewer } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
/** An admin token with every scope: it sets things up, and is no person. */
let admin: ReturnType<typeof client>;
let cfo: SignedInPerson;
/** A signed-in person who is the reviewer ADA, to whom low-confidence diagnoses are assigned. */
let ada: SignedInPerson;

const ADA = 'did:web:handoff.local:reviewers:ada';
const lowConfidenceDiagnosis = {
  task_type: 'medical_diagnosis',
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};

beforeAll(async () => {
  stack = await startStack();
  admin = client(stack.baseUrl, await stack.token());
  cfo = await signedInPerson(stack, { name: 'CFO' });
  ada = await signedInReviewer(stack, ADA);
});
afterAll(async () => {
  await stack?.stop();
});

/** The person's own delegation token, exchanged from their session, holding exactly `capabilities`. */
async function tokenHolding(person: SignedInPerson, capabilities: string[]) {
  const exchanged = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
    json: { subject_token: person.sessionToken, capabilities, duration_seconds: 600 },
  });
  expect(exchanged.status).toBe(201);
  expect(exchanged.body.capabilities).toEqual(capabilities);
  return {
    as: client(stack.baseUrl, exchanged.body.token as string),
    token: exchanged.body.token as string,
    token_id: exchanged.body.token_id as string,
  };
}

/** A token the person gives an agent, holding exactly `capabilities`. */
async function agentHolding(person: SignedInPerson, capabilities: string[]) {
  const delegated = await delegateToNewAgent(stack, person, capabilities);
  return { ...delegated, as: client(stack.baseUrl, delegated.token) };
}

async function routingAssignedToAda(): Promise<string> {
  const routed = await admin('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
  expect(routed.body.assigned_to).toMatchObject({ did: ADA });
  return routed.body.routing_id as string;
}

async function completedAutonomousRouting(): Promise<string> {
  const routed = await admin('POST', '/v1/orch/routing', { json: { ai_confidence: 0.95 } });
  expect(routed.body.decision).toBe('ai_autonomous');
  const id = routed.body.routing_id as string;
  await eventually(
    () => admin('GET', `/v1/orch/routing/${id}`),
    (reply: CallResult) => reply.body.status === 'completed',
  );
  return id;
}

async function pendingApproval(approver: SignedInPerson): Promise<string> {
  const created = await admin('POST', '/v1/approvals', {
    json: {
      requester_passport_id: 'did:web:acme.example:agents:payer',
      approver_passport_id: approver.did,
      action_description: 'Pay invoice 42',
      request_data: { amount: 25_000 },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const statusOf = async (path: string) => (await admin('GET', path)).body.status as string;

describe('resolving a routing under a delegation', () => {
  it('takes routing:resolve alone: it resolves the person’s routing, and starts none', async () => {
    const id = await routingAssignedToAda();
    const resolver = await tokenHolding(ada, ['routing:resolve']);
    const started = await resolver.as('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    expectProblem(started, 403, 'insufficient_scope');
    expect(started.body.required_capability).toBe('routing:write');

    const resolved = await resolver.as('POST', `/v1/orch/routing/${id}/resolve`, {
      json: { outcome: 'approved', comment: 'MRI is right' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      routing_id: id,
      status: 'completed',
      reviewer_did: ADA,
      outcome: 'approved',
    });
    // The person's own token (no agent): the record names the sign-in credential and the token, as docs/ledger.md says.
    const provenance = await admin('GET', `/v1/orch/provenance/${id}`);
    expect(provenance.body.decision_chain.at(-1)).toMatchObject({ action: 'routing_resolved' });
    expect(provenance.body.decision_chain.at(-1).actor).toEqual({
      type: 'human',
      did: ADA,
      passport_id: ada.passport_id,
      credential: { type: 'device_key', id: ada.kid },
      delegation_token_id: resolver.token_id,
    });
  });

  it('is refused to routing:write, which starts routings and resolves none', async () => {
    const starter = await tokenHolding(ada, ['routing:write']);
    const started = await starter.as('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    expect(started.status).toBe(200);
    const id = started.body.routing_id as string;

    const refused = await starter.as('POST', `/v1/orch/routing/${id}/resolve`, { json: { outcome: 'approved' } });
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body.required_capability).toBe('routing:resolve');
    expect(await statusOf(`/v1/orch/routing/${id}`)).not.toBe('completed');
  });

  it('escalating and feedback take their own capabilities, which resolving does not imply', async () => {
    const id = await completedAutonomousRouting();
    const resolver = await tokenHolding(cfo, ['routing:resolve']);
    expectProblem(
      await resolver.as('POST', `/v1/orch/routing/${id}/feedback`, {
        json: { verdict: 'flagged', reason: 'check it' },
      }),
      403,
      'insufficient_scope',
    );
    expectProblem(
      await resolver.as('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: id, escalation_reason: 'review it' },
      }),
      403,
      'insufficient_scope',
    );

    const feedback = await (
      await tokenHolding(cfo, ['routing:feedback'])
    ).as('POST', `/v1/orch/routing/${id}/feedback`, { json: { verdict: 'flagged', reason: 'check it' } });
    expect(feedback.status).toBe(201);
    expect(feedback.body.submitted_by).toBe(cfo.did);
    const escalated = await (
      await tokenHolding(cfo, ['routing:escalate'])
    ).as('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: id, escalation_reason: 'review it', target_capability: 'general_review' },
    });
    expect(escalated.status).toBe(200);
  });
});

describe('cancelling an approval under a delegation', () => {
  it('takes approvals:cancel alone: it cancels the person’s request, and asks for none', async () => {
    const id = await pendingApproval(cfo);
    const canceller = await tokenHolding(cfo, ['approvals:cancel']);
    const asked = await canceller.as('POST', '/v1/approvals', {
      json: { requester_passport_id: cfo.did, action_description: 'Pay invoice 43', request_data: { amount: 10 } },
    });
    expectProblem(asked, 403, 'insufficient_scope');
    expect(asked.body.required_capability).toBe('approvals:request');

    const cancelled = await canceller.as('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'paid already' } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled_by: cfo.did });
  });

  it('is refused to approvals:request, which asks for approvals and cancels none', async () => {
    const requester = await tokenHolding(cfo, ['approvals:request']);
    const asked = await requester.as('POST', '/v1/approvals', {
      json: {
        requester_passport_id: cfo.did,
        approver_passport_id: cfo.did,
        action_description: 'Pay invoice 44',
        request_data: { amount: 10 },
      },
    });
    expect(asked.status).toBe(201);
    const id = asked.body.id as string;

    const refused = await requester.as('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'changed my mind' } });
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body.required_capability).toBe('approvals:cancel');
    expectProblem(
      await requester.as('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } }),
      403,
      'insufficient_scope',
    );
    expect(await statusOf(`/v1/approvals/${id}`)).toBe('pending');
  });
});

describe('the capability vocabulary', () => {
  it('a signed-in person holds every human-act capability, and can hand them all on in one token', async () => {
    expect(SIGNED_IN_PERSON_CAPABILITIES).toEqual(expect.arrayContaining([...HUMAN_ACT_CAPABILITY_NAMES]));
    expect(HUMAN_ACT_CAPABILITY_NAMES).toEqual([
      'approvals:respond',
      'approvals:cancel',
      'routing:resolve',
      'routing:escalate',
      'routing:feedback',
    ]);
    await tokenHolding(cfo, [...HUMAN_ACT_CAPABILITY_NAMES]);
  });

  it.each([['routing:everything'], ['approvals:answer'], ['routing:resolve:all']])(
    'refuses the unknown name %s with 400',
    async (name) => {
      const reply = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
        json: { subject_token: cfo.sessionToken, capabilities: ['routing:resolve', name] },
      });
      expectProblem(reply, 400, 'validation_failed');
      expect(JSON.stringify(reply.body)).toContain('capabilities');
    },
  );

  it('the OpenAPI document names the capability of each human act, and the issuing operations list them all', async () => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { description: string; 'x-capability'?: string }>>;
    };
    const acts: Array<[string, string]> = [
      ['/v1/orch/routing/{routing_id}/resolve', 'routing:resolve'],
      ['/v1/orch/escalation/manual', 'routing:escalate'],
      ['/v1/orch/routing/{routing_id}/feedback', 'routing:feedback'],
      ['/v1/approvals/{approval_id}/respond', 'approvals:respond'],
      ['/v1/approvals/{approval_id}/cancel', 'approvals:cancel'],
      ['/v1/escalations/{approval_id}/respond', 'approvals:respond'],
    ];
    for (const [path, capability] of acts) {
      expect(doc.paths[path]!.post!['x-capability']).toBe(capability);
      expect(doc.paths[path]!.post!.description).toContain(capability);
    }
    for (const path of ['/v1/delegation-tokens/exchange', '/v1/delegation-tokens']) {
      for (const capability of HUMAN_ACT_CAPABILITY_NAMES)
        expect(doc.paths[path]!.post!.description).toContain(capability);
    }
  });
});

describe('the record of a delegated act', () => {
  it('names the person, the sign-in credential of their session, the agent and the delegation token', async () => {
    const id = await pendingApproval(cfo);
    const assistant = await agentHolding(cfo, ['approvals:respond']);
    const answered = await assistant.as('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } });
    expect(answered.status).toBe(200);
    const [body] = await stack.database
      .db('ledger_entries')
      .where({ transaction_id: answered.body.provenance_id as string })
      .pluck('body');
    expect(JSON.parse(body as string).actor).toEqual({
      type: 'human',
      did: cfo.did,
      passport_id: cfo.passport_id,
      credential: { type: 'device_key', id: cfo.kid },
      agent_id: assistant.agent.did,
      delegation_token_id: assistant.token_id,
    });
  });
});
