import { call, client, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

/**
 * Capability proofs over HTTP: a proof verifies for its own task, and is refused with its reason for another
 * task, a revoked or expired grant, and once the key that signed it is revoked; another organization's proof
 * and grant are 404.
 */
let admin: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
let agentDid = '';
let orgPassportId = '';

const stack = useStack();
const uri = 'capability://default/proof_triage';
const grantTo = async (extra: Record<string, unknown> = {}) => {
  const reply = await admin('POST', '/v1/capability-grants', {
    json: { agentDID: agentDid, capabilities: [uri], weight: 0.8, ...extra },
  });
  expect(reply.status).toBe(201);
  return reply.body.data[0].grantId as string;
};
const issue = async (grantId: string, taskId: string) => {
  const reply = await admin('POST', `/v1/capability-grants/${grantId}/proofs`, { json: { taskId } });
  expect(reply.status).toBe(201);
  return reply.body as { proof: string; kid: string };
};
const verify = (capabilityProof: string, taskId: string, as = admin) =>
  as('POST', '/v1/capability-proofs/verify', { json: { agentDid, capabilityProof, taskId } });

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  const org = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:proofs-other.example', name: 'Other' },
  });
  other = client(stack.baseUrl, await stack.token(['platform:admin'], 'bob', org.body.organization_id as string));
  const passport = await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Default' } });
  orgPassportId = passport.body.data.passportId as string;
  agentDid = (await admin('POST', '/v1/passports', { json: { type: 'agent', name: 'Prover' } })).body.data
    .did as string;
  expect(
    (await admin('POST', '/v1/capabilities', { json: { capabilityId: uri, name: 'Triage', description: 'x' } })).status,
  ).toBe(201);
});

describe('capability proofs', () => {
  it('verifies for its own task, is refused for another, and is recorded as a skill proof another organization cannot read', async () => {
    const { proof } = await issue(await grantTo(), 'task-1');
    expect((await verify(proof, 'task-1')).body).toMatchObject({ valid: true, code: null, capabilityId: uri });
    expect((await verify(proof, 'task-2')).body).toMatchObject({
      valid: false,
      code: 'task_mismatch',
      reason: expect.stringContaining('task-2'),
    });
    const submitted = await admin('POST', '/v1/capability-proofs', {
      json: { agentId: agentDid, skillId: uri, proofDocument: proof },
    });
    expect(submitted.status).toBe(201);
    const proofId = submitted.body.proofId as string;
    expect((await admin('GET', `/v1/capability-proofs/${proofId}`)).status).toBe(200);
    expectProblem(await other('GET', `/v1/capability-proofs/${proofId}`), 404, 'capability_proof_not_found');
    expectProblem(await verify(proof, 'task-1', other), 404, 'capability_grant_not_found');
  });

  it('refuses a proof of a revoked grant, and of an expired one, each with its reason', async () => {
    const revokedGrant = await grantTo();
    const revoked = await issue(revokedGrant, 'task-r');
    expect(
      (await admin('POST', `/v1/capability-grants/${revokedGrant}/revoke`, { json: { reason: 'x' } })).status,
    ).toBe(201);
    expect((await verify(revoked.proof, 'task-r')).body).toMatchObject({ valid: false, code: 'grant_revoked' });

    const expiring = await issue(await grantTo({ expiresAt: new Date(Date.now() + 1500).toISOString() }), 'task-e');
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await verify(expiring.proof, 'task-e')).body).toMatchObject({
      valid: false,
      code: 'grant_expired',
      reason: expect.stringContaining('expired'),
    });
  });

  it('refuses a proof signed by a key revoked since', async () => {
    const { proof, kid } = await issue(await grantTo(), 'task-k');
    expect((await verify(proof, 'task-k')).body.valid).toBe(true);
    const revokedKey = await admin('POST', `/v1/passports/${orgPassportId}/keys/${encodeURIComponent(kid)}/revoke`, {
      json: { reason: 'compromised' },
    });
    expect(revokedKey.status).toBe(200);
    expect((await verify(proof, 'task-k')).body).toMatchObject({ valid: false, code: 'signature_invalid' });
  });
});
