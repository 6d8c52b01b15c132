import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { newEmail, inviteEmployee, requestVerificationCode, verify } from '../support/employees';
import { call, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { useStack } from '../support/stack';

const stack = useStack();
let admin: string;
beforeAll(async () => {
  admin = await stack.token(['platform:admin']);
});

const as = (token: string) => (method: string, path: string, json?: unknown) =>
  call(stack.baseUrl, method, path, { token, ...(json === undefined ? {} : { json }) });

async function linkedPerson(): Promise<SignedInPerson> {
  const email = newEmail();
  const person = await signedInPerson(stack);
  const { linkingCode } = await inviteEmployee(stack, admin, email);
  const { code } = await requestVerificationCode(stack, person, linkingCode, email);
  expect((await verify(stack, person, code!)).status).toBe(200);
  return person;
}

describe('the people of an organization', () => {
  it('attests a skill of a linked person (tier 2), and refuses one not linked', async () => {
    const person = await linkedPerson();
    const attested = await as(admin)('POST', `/v1/passports/${person.passport_id}/attestations`, {
      skill: 'capability://acme/clinical-review',
    });
    expect(attested.status).toBe(201);
    expect(attested.body).toMatchObject({ identityTier: 2, subject: person.did });
    const exchanged = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
      json: { subject_token: person.sessionToken, capabilities: ['agents:read'], required_identity_tier: 2 },
    });
    expect(exchanged.status).toBe(201);
    const stranger = await signedInPerson(stack);
    const refused = await as(admin)('POST', `/v1/passports/${stranger.passport_id}/attestations`, { skill: 'x' });
    expectProblem(refused, 409, 'passport_not_linked');
    expectProblem(
      await as(person.sessionToken)('POST', `/v1/passports/${person.passport_id}/attestations`, { skill: 'x' }),
      403,
      'insufficient_scope',
    );
  });

  it('keeps an append-only consent log, each consent in the ledger, written by the person only', async () => {
    const person = await signedInPerson(stack);
    const path = `/v1/passports/${person.passport_id}/consents`;
    const consent = { consentTimestamp: '2026-11-20T10:00:00Z', description: 'Share my reviews with triage agents' };
    const recorded = await as(person.sessionToken)('POST', path, {
      ...consent,
      capabilityEvidence: { capability: 'capability://acme/triage' },
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body).toMatchObject({ ...consent, consentTimestamp: '2026-11-20T10:00:00.000Z' });
    const record = await stack.database
      .db('ledger_entries')
      .where({ transaction_id: recorded.body.transactionId })
      .first();
    expect(record).toBeDefined();
    expectProblem(await as(admin)('POST', path, consent), 403, 'person_required');
    const other = await signedInPerson(stack);
    expectProblem(await as(other.sessionToken)('POST', path, consent), 403, 'actor_mismatch');
    expectProblem(await as(other.sessionToken)('GET', path), 404, 'passport_not_found');
    const log = await as(person.sessionToken)('GET', path);
    expect(log.body.data).toEqual([expect.objectContaining({ consentId: recorded.body.consentId })]);
    await expect(
      stack.database
        .db('passport_consents')
        .where({ consent_id: recorded.body.consentId })
        .update({ description: 'x' }),
    ).rejects.toThrow(/append-only/);
    await expect(
      stack.database.db('passport_consents').where({ consent_id: recorded.body.consentId }).del(),
    ).rejects.toThrow(/append-only/);
  });

  it('delegates a Passport’s permissions to an agent by its DID, as a token revoked with the delegation', async () => {
    const person = await signedInPerson(stack);
    const agent = await as(admin)('POST', '/v1/passports', { type: 'agent', name: 'Assistant' });
    expect(agent.status).toBe(201);
    const path = `/v1/passports/${person.passport_id}/delegations`;
    const delegated = await as(person.sessionToken)('POST', path, {
      delegateeDID: agent.body.data.did,
      capabilities: ['agents:read'],
      duration_seconds: 600,
    });
    expect(delegated.status).toBe(201);
    expect(delegated.body).toMatchObject({ agent_did: agent.body.data.did, capabilities: ['agents:read'] });
    expect((await as(delegated.body.token)('GET', '/v1/agents')).status).toBe(200);
    expectProblem(await as(delegated.body.token)('GET', '/v1/approvals'), 403, 'insufficient_scope');
    const unknown = { delegateeDID: 'did:web:nowhere.example:agents:x', capabilities: ['agents:read'] };
    expectProblem(await as(person.sessionToken)('POST', path, unknown), 404, 'delegatee_not_found');
    expectProblem(
      await as(admin)('POST', path, { ...unknown, delegateeDID: agent.body.data.did }),
      403,
      'person_required',
    );
    const revoked = await as(person.sessionToken)('POST', `/v1/delegations/${delegated.body.delegation_id}/revoke`, {
      reason: 'done',
    });
    expect(revoked.status).toBe(201);
    expectProblem(await as(delegated.body.token)('GET', '/v1/agents'), 401, 'unauthorized');
  });

  it('names a new organization’s first administrator, who enrolls from the e-mail and administers it', async () => {
    const operator = await stack.token(['cloud:admin:global'], 'operator');
    const email = newEmail('first-admin');
    const created = await as(operator)('POST', '/v1/organizations', {
      org_did: `did:web:gamma-${Date.now()}.example`,
      name: 'Gamma',
      administrator_email: email,
    });
    expect(created.status).toBe(201);
    expect(created.body.administrator).toMatchObject({ email, role: 'administrator', status: 'invited' });
    const mail = await stack.mail.next(email, (m) => m.subject === 'You are invited to Handoff');
    const fragment = /#enrollment=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
    const options = JSON.parse(Buffer.from(fragment, 'base64url').toString()) as PublicKeyCredentialCreationOptionsJSON;
    const enrolled = await call(stack.baseUrl, 'POST', '/v1/webauthn/registration', {
      json: { response: new SoftwareAuthenticator().register(options, stack.baseUrl) },
    });
    expect(enrolled.status).toBe(201);
    const session = enrolled.body.session.session_token as string;
    const employees = await as(session)('GET', '/v1/employees');
    expect(employees.status).toBe(200);
    expect(employees.body.data).toEqual([expect.objectContaining({ email, status: 'active' })]);
    expect((await as(session)('POST', '/v1/employees', { email: newEmail() })).status).toBe(201);
    // A person who is no administrator holds none of it.
    const member = await signedInPerson(stack, { organization_id: created.body.organization_id });
    expectProblem(await as(member.sessionToken)('GET', '/v1/employees'), 403, 'insufficient_scope');
  });
});
