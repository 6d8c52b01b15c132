import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/human-acts';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { eventually } from '../support/eventually';
import { client, expectProblem, type CallResult } from '../support/http';
import { delegateToNewAgent, signedInPerson, type SignedInPerson } from '../support/identity';
import { signedInReviewer } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
/** An admin token with every scope: it creates requests and routings, and is no person. */
let admin: ReturnType<typeof client>;
let cfo: SignedInPerson;
let asCfo: ReturnType<typeof client>;
let grace: SignedInPerson;
let asGrace: ReturnType<typeof client>;
const scratch = mkdtempSync(path.join(tmpdir(), 'handoff-human-acts-'));

beforeAll(async () => {
  stack = await startStack();
  admin = client(stack.baseUrl, await stack.token());
  cfo = await signedInPerson(stack, { name: 'CFO' });
  asCfo = client(stack.baseUrl, cfo.sessionToken);
  grace = await signedInPerson(stack, { name: 'Grace' });
  asGrace = client(stack.baseUrl, grace.sessionToken);
});
afterAll(async () => {
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function pendingApproval(body: Record<string, unknown> = {}): Promise<string> {
  const created = await admin('POST', '/v1/approvals', {
    json: {
      requester_passport_id: 'did:web:acme.example:agents:payer',
      approver_passport_id: cfo.did,
      action_description: 'Pay invoice 42',
      request_data: { amount: 25_000 },
      ...body,
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const statusOf = async (id: string) => (await admin('GET', `/v1/approvals/${id}`)).body.status as string;

describe('a signed-in person', () => {
  it('is authenticated by their session token: reads and acts in their organization, configures nothing', async () => {
    expect((await asCfo('GET', '/v1/approvals?limit=1')).status).toBe(200);
    expect((await asCfo('GET', '/v1/orch/reviewers?limit=1')).status).toBe(200);
    expectProblem(
      await asCfo('PUT', '/v1/orch/reviewers/did:web:x.example:r', { json: { display_name: 'X' } }),
      403,
      'insufficient_scope',
    );
  });

  it('is refused once the device key the session was signed in with is revoked', async () => {
    const person = await signedInPerson(stack);
    await stack.database
      .db('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    const reply = await client(stack.baseUrl, person.sessionToken)('GET', '/v1/approvals?limit=1');
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe('The device key this session was signed in with is no longer active');
  });
});

describe('answering an approval request', () => {
  it('is refused to a token that is no person (a PAT, a service account, an OAuth token), and the request stays pending', async () => {
    const id = await pendingApproval();
    const { token } = await mintPersonalAccessToken(stack.database.db, {
      name: 'ci',
      scopes: ['platform:write', 'platform:read'],
      organizationId: 'org_default',
    });
    const pat = client(stack.baseUrl, token);
    for (const caller of [pat, admin]) {
      const reply = await caller('POST', `/v1/approvals/${id}/respond`, {
        json: { decision: 'approved', responded_by: cfo.did },
      });
      expectProblem(reply, 403, 'person_required');
      expect(reply.body.detail).toContain('passkey or a device key');
    }
    expectProblem(await pat('POST', `/v1/approvals/${id}/cancel`, { json: {} }), 403, 'person_required');
    expectProblem(
      await pat('POST', `/v1/escalations/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'person_required',
    );
    expect(await statusOf(id)).toBe('pending');
  });

  it('is refused to someone other than the approver, and the request stays pending for the approver', async () => {
    const id = await pendingApproval();
    const wrong = await asGrace('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approve', reason: 'looks fine to me' },
    });
    expectProblem(wrong, 403, 'not_the_approver');
    expect(wrong.body.detail).toContain(cfo.did);
    expectProblem(
      await asGrace('POST', `/v1/escalations/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'not_the_approver',
    );
    expectProblem(
      await asGrace('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'mine now' } }),
      403,
      'not_the_approver',
    );
    expect(await statusOf(id)).toBe('pending');
    expect(await stack.database.db('ledger_entries').where({ subject_id: id }).pluck('step_id')).toEqual(['requested']);

    const right = await asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ status: 'approved', responded_by: cfo.did });
  });

  it('is refused when the body names someone other than the signed-in person', async () => {
    const id = await pendingApproval();
    const reply = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', responded_by: grace.did },
    });
    expectProblem(reply, 403, 'actor_mismatch');
    expect(reply.body.detail).toContain(grace.did);
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/cancel`, { json: { cancelled_by: grace.did } }),
      403,
      'actor_mismatch',
    );
    expectProblem(
      await asCfo('POST', `/v1/escalations/${id}/respond`, { json: { decision: 'reject', responded_by: grace.did } }),
      403,
      'actor_mismatch',
    );
    expect(await statusOf(id)).toBe('pending');
  });

  it('is taken from anyone signed in when the request names no approver, recorded as them', async () => {
    const id = await pendingApproval({ approver_passport_id: undefined });
    const reply = await asGrace('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'withdrawn' } });
    expect(reply.body).toMatchObject({
      status: 'cancelled',
      cancelled_by: grace.did,
      message: `Approval ${id} was cancelled by ${grace.did}`,
    });
  });
});

describe('the approver’s delegate', () => {
  /** The person's own delegation token (exchanged from their session), then one they give an agent. */
  async function agentHolding(from: SignedInPerson, capabilities: string[]) {
    return { ...(await delegateToNewAgent(stack, from, capabilities)), credential: from.kid };
  }

  it('answers with a delegation from the approver that covers answering; the record names the approver, the credential and the agent', async () => {
    const id = await pendingApproval();
    const fromGrace = await agentHolding(grace, [HUMAN_ACT_CAPABILITIES.respond_approval]);
    expectProblem(
      await client(stack.baseUrl, fromGrace.token)('POST', `/v1/approvals/${id}/respond`, {
        json: { decision: 'approved' },
      }),
      403,
      'not_the_approver',
    );
    const notCovering = await agentHolding(cfo, ['approvals:read']);
    expectProblem(
      await client(stack.baseUrl, notCovering.token)('POST', `/v1/approvals/${id}/respond`, {
        json: { decision: 'approved' },
      }),
      403,
      'insufficient_scope',
    );
    expect(await statusOf(id)).toBe('pending');

    const fromCfo = await agentHolding(cfo, [HUMAN_ACT_CAPABILITIES.respond_approval]);
    const answered = await client(stack.baseUrl, fromCfo.token)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'approved', responded_by: cfo.did });
    const [record] = await stack.database
      .db('ledger_entries')
      .where({ subject_id: id, step_id: 'responded' })
      .pluck('body');
    expect(JSON.parse(record as string).actor).toEqual({
      type: 'human',
      did: cfo.did,
      passport_id: cfo.passport_id,
      credential: { type: 'device_key', id: fromCfo.credential },
      agent_id: fromCfo.agent.did,
      delegation_token_id: fromCfo.token_id,
    });
  });
});

/** Runs `npm run verify` as a user would, offline, on a file written from what the API answered. */
function verifyOffline(name: string, content: string, key: string) {
  const file = path.join(scratch, name);
  writeFileSync(file, content);
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', '..', 'scripts', 'verify.ts'), '--key', key, file],
    { encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('what a human act leaves behind', () => {
  it('a provenance record naming the Passport DID and the device key, which `npm run verify` shows', async () => {
    const id = await pendingApproval();
    const answered = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'rejected', comment: 'not this quarter' },
    });
    expect(answered.status).toBe(200);
    const tx = answered.body.provenance_id as string;
    const [body] = await stack.database.db('ledger_entries').where({ transaction_id: tx }).pluck('body');
    expect(JSON.parse(body as string)).toMatchObject({
      action: 'approval_rejected',
      actor: {
        type: 'human',
        did: cfo.did,
        passport_id: cfo.passport_id,
        credential: { type: 'device_key', id: cfo.kid },
      },
    });

    const key = (await admin('GET', '/v1/ledger/key')).body.verifier_key as string;
    const bundle = await eventually(
      () => admin('GET', `/v1/ledger/records/${tx}/proof`),
      (reply: CallResult) => reply.status === 200,
    );
    const verified = verifyOffline('answer-bundle.json', JSON.stringify(bundle.body), key);
    expect(verified.status).toBe(0);
    expect(verified.output).toContain(
      `approval_rejected by ${cfo.did} (Passport ${cfo.passport_id}, device key ${cfo.kid})`,
    );

    // The whole log, exported once the answer is sealed, shows it as well.
    const exported = await admin('GET', '/v1/ledger/export');
    expect(exported.status).toBe(200);
    const wholeLog = verifyOffline('ledger.ndjson', exported.text, key);
    expect(wholeLog.status).toBe(0);
    expect(wholeLog.output).toContain(
      `(${tx}): approval_rejected by ${cfo.did} (Passport ${cfo.passport_id}, device key ${cfo.kid})`,
    );
  });
});

const lowConfidenceDiagnosis = {
  task_type: 'medical_diagnosis',
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};
const ADA = 'did:web:handoff.local:reviewers:ada';

describe('resolving a routing', () => {
  it('is done by the reviewer’s Passport only; the record names it with the credential', async () => {
    const ada = await signedInReviewer(stack, ADA);
    const routed = await admin('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    expect(routed.body.assigned_to).toMatchObject({ did: ADA });
    const id = routed.body.routing_id as string;

    expectProblem(
      await admin('POST', `/v1/orch/routing/${id}/resolve`, { json: { reviewer_did: ADA, outcome: 'approved' } }),
      403,
      'person_required',
    );
    expectProblem(
      await asGrace('POST', `/v1/orch/routing/${id}/resolve`, { json: { reviewer_did: ADA, outcome: 'approved' } }),
      403,
      'actor_mismatch',
    );
    expectProblem(
      await asGrace('POST', `/v1/orch/routing/${id}/resolve`, { json: { outcome: 'approved' } }),
      403,
      'reviewer_not_assigned',
    );

    const resolved = await client(stack.baseUrl, ada.sessionToken)('POST', `/v1/orch/routing/${id}/resolve`, {
      json: { outcome: 'approved', comment: 'MRI is right' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      routing_id: id,
      status: 'completed',
      reviewer_did: ADA,
      outcome: 'approved',
    });
    expect(resolved.body).not.toHaveProperty('actor');
    const provenance = await admin('GET', `/v1/orch/provenance/${id}`);
    expect(provenance.body.decision_chain.at(-1)).toMatchObject({
      action: 'routing_resolved',
      actor: { type: 'human', did: ADA, passport_id: ada.passport_id, credential: { type: 'device_key', id: ada.kid } },
    });
    expect(provenance.body.accountability.primary_decision_maker).toBe(ADA);
  });

  it('links a reviewer registered with a Passport’s DID, or a named Passport, to that Passport', async () => {
    const reviewers = async () =>
      (await admin('GET', '/v1/orch/reviewers?limit=100')).body.data as Array<{
        did: string;
        passport_id: string | null;
      }>;
    expect(
      (await admin('PUT', `/v1/orch/reviewers/${encodeURIComponent(grace.did)}`, { json: { display_name: 'Grace' } }))
        .status,
    ).toBe(204);
    expect((await reviewers()).find((r) => r.did === grace.did)).toMatchObject({ passport_id: grace.passport_id });
    expect(
      (
        await admin('PUT', '/v1/orch/reviewers/did:web:handoff.local:reviewers:cfo', {
          json: { display_name: 'CFO', passport_id: cfo.passport_id },
        })
      ).status,
    ).toBe(204);
    expect((await reviewers()).find((r) => r.did === 'did:web:handoff.local:reviewers:cfo')).toMatchObject({
      passport_id: cfo.passport_id,
    });
    expectProblem(
      await admin('PUT', '/v1/orch/reviewers/did:web:handoff.local:reviewers:nobody', {
        json: { display_name: 'Nobody', passport_id: 'pp_unknown' },
      }),
      422,
      'reviewer_passport_not_found',
    );
  });
});

describe('escalating by hand and giving feedback', () => {
  it('feedback is a person’s act, refused to tokens; both are recorded with the Passport and credential of the person', async () => {
    const routed = await admin('POST', '/v1/orch/routing', { json: { ai_confidence: 0.95 } });
    const id = routed.body.routing_id as string;
    expect(routed.body.decision).toBe('ai_autonomous');
    await eventually(
      () => admin('GET', `/v1/orch/routing/${id}`),
      (reply: CallResult) => reply.body.status === 'completed',
    );

    expectProblem(
      await admin('POST', `/v1/orch/routing/${id}/feedback`, {
        json: { verdict: 'flagged', reason: 'check it', submitted_by: cfo.did },
      }),
      403,
      'person_required',
    );
    expectProblem(
      await asCfo('POST', `/v1/orch/routing/${id}/feedback`, {
        json: { verdict: 'flagged', reason: 'check it', submitted_by: grace.did },
      }),
      403,
      'actor_mismatch',
    );
    const feedback = await asCfo('POST', `/v1/orch/routing/${id}/feedback`, {
      json: { verdict: 'flagged', reason: 'check it' },
    });
    expect(feedback.status).toBe(201);
    expect(feedback.body.submitted_by).toBe(cfo.did);

    expectProblem(
      await asCfo('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: id, escalation_reason: 'review it', requested_by: grace.did },
      }),
      403,
      'actor_mismatch',
    );
    const escalated = await asCfo('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: id, escalation_reason: 'review it', target_capability: 'general_review' },
    });
    expect(escalated.status).toBe(200);

    const chain = (await admin('GET', `/v1/orch/provenance/${id}`)).body.decision_chain as Array<{
      action: string;
      actor: Record<string, unknown>;
    }>;
    const byCfo = {
      type: 'human',
      did: cfo.did,
      passport_id: cfo.passport_id,
      credential: { type: 'device_key', id: cfo.kid },
    };
    expect(chain.find((step) => step.action === 'outcome_feedback')?.actor).toMatchObject(byCfo);
    expect(chain.find((step) => step.action === 'escalated_by_request')?.actor).toMatchObject(byCfo);
  });
});
