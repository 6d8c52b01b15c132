import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyPassportAttestation } from '../../services/identity/attestations/verify';
import { newEmail, inviteEmployee, requestVerificationCode, verify, wrongCode } from '../support/employees';
import { call, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const stack = useStack();
let admin: string;
beforeAll(async () => {
  admin = await stack.token(['platform:admin']);
});

const exchange = (sessionToken: string, required_identity_tier: number) =>
  call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
    json: { subject_token: sessionToken, capabilities: ['agents:read'], required_identity_tier },
  });

/** `npm run verify -- --did-document <document> <attestation>`, as someone offline runs it. */
async function npmRunVerify(attestation: unknown, document: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'attestation-'));
  writeFileSync(join(dir, 'attestation.json'), JSON.stringify(attestation));
  writeFileSync(join(dir, 'did.json'), JSON.stringify(document));
  const args = ['tsx', 'scripts/verify.ts', '--did-document', join(dir, 'did.json'), join(dir, 'attestation.json')];
  try {
    const { stdout } = await promisify(execFile)('npx', args);
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('linking a Passport to its organization by e-mail', () => {
  it('links with the code sent by e-mail: tier 1, and the organization’s attestation, verifiable offline', async () => {
    const email = newEmail('grace');
    const person = await signedInPerson(stack);
    expectProblem(await exchange(person.sessionToken, 1), 403, 'identity_tier_too_low');
    const { linkingCode } = await inviteEmployee(stack, admin, email);
    const { reply, code } = await requestVerificationCode(stack, person, linkingCode, email);
    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({ passportId: person.passport_id, email, status: 'pending' });
    expect(code).toMatch(/^[0-9]{6}$/);
    expect(JSON.stringify(reply.body)).not.toContain(code);

    const linked = await verify(stack, person, code!);
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ identityTier: 1, attestationId: expect.stringMatching(/^att_/) });
    expect((await exchange(person.sessionToken, 1)).status).toBe(201);

    const list = await call(stack.baseUrl, 'GET', `/v1/passports/${person.passport_id}/attestations`, { token: admin });
    expect(list.body.data).toEqual([
      expect.objectContaining({ attestationId: linked.body.attestationId, skill: 'organization-membership' }),
    ]);
    const attestation = list.body.data[0];
    const issuerId = /passports:(pp_[^:]+)$/.exec(attestation.issuer)![1]!;
    const document = (await call(stack.baseUrl, 'GET', `/passports/${issuerId}/did.json`)).body;
    expect(await verifyPassportAttestation(attestation, document)).toMatchObject({ ok: true, problems: [] });
    const forged = { ...attestation, skill: 'capability://acme/surgery' };
    expect(await verifyPassportAttestation(forged, document)).toMatchObject({ ok: false });
    expect(await npmRunVerify(attestation, document)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('VERIFIED'),
    });
    expect(await npmRunVerify(forged, document)).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('NOT VERIFIED'),
    });

    const employees = await call(stack.baseUrl, 'GET', '/v1/employees?status=active', { token: admin });
    expect(employees.body.data).toContainEqual(
      expect.objectContaining({ email, status: 'active', passport_id: person.passport_id }),
    );
  });

  it('uses a code once, and a linking code once', async () => {
    const email = newEmail();
    const person = await signedInPerson(stack);
    const { linkingCode } = await inviteEmployee(stack, admin, email);
    const { code } = await requestVerificationCode(stack, person, linkingCode, email);
    expect((await verify(stack, person, code!)).status).toBe(200);
    expectProblem(await verify(stack, person, code!), 409, 'verification_code_used');
    const other = await signedInPerson(stack);
    const again = await requestVerificationCode(stack, other, linkingCode, email);
    expectProblem(again.reply, 409, 'linking_code_used');
  });

  it('takes five attempts: the fifth wrong code ends it, and a sixth, even right, is refused', async () => {
    const email = newEmail();
    const person = await signedInPerson(stack);
    const { linkingCode } = await inviteEmployee(stack, admin, email);
    const { code } = await requestVerificationCode(stack, person, linkingCode, email);
    for (const remaining of [4, 3, 2, 1, 0]) {
      const reply = await verify(stack, person, wrongCode(code!));
      expectProblem(reply, 400, 'verification_code_invalid');
      expect(reply.body.attempts_remaining).toBe(remaining);
    }
    expectProblem(await verify(stack, person, code!), 409, 'verification_attempts_exhausted');
    // A new code starts a new count.
    const fresh = await requestVerificationCode(stack, person, linkingCode, email);
    expect((await verify(stack, person, fresh.code!)).status).toBe(200);
  });

  it('refuses a code past its 15 minutes, and one a newer request replaced', async () => {
    const email = newEmail();
    const person = await signedInPerson(stack);
    const { linkingCode } = await inviteEmployee(stack, admin, email);
    const first = await requestVerificationCode(stack, person, linkingCode, email);
    const second = await requestVerificationCode(stack, person, linkingCode, email);
    expectProblem(await verify(stack, person, first.code!), 400, 'verification_code_invalid');
    await stack.database
      .db('organization_links')
      .where({ passport_id: person.passport_id, status: 'pending' })
      .update({
        expires_at: new Date(Date.now() - 1000),
      });
    expectProblem(await verify(stack, person, second.code!), 410, 'verification_code_expired');
  });

  it('is the person’s own act: 403 to a credential that is no person and to another person', async () => {
    const email = newEmail();
    const person = await signedInPerson(stack);
    const { linkingCode } = await inviteEmployee(stack, admin, email);
    const path = `/v1/passports/${person.passport_id}/organization-links`;
    const asAdmin = await call(stack.baseUrl, 'POST', path, { token: admin, json: { linkingCode, email } });
    expectProblem(asAdmin, 403, 'person_required');
    const other = await signedInPerson(stack);
    const asOther = await call(stack.baseUrl, 'POST', path, {
      token: other.sessionToken,
      json: { linkingCode, email },
    });
    expectProblem(asOther, 403, 'actor_mismatch');
    expectProblem(await verify(stack, person, '123456', other.sessionToken), 403, 'actor_mismatch');
  });

  it('does not reach across organizations: another organization’s code, Passport or employee is 404', async () => {
    const operator = await stack.token(['cloud:admin:global'], 'operator');
    const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: operator,
      json: { org_did: `did:web:beta-${Date.now()}.example`, name: 'Beta' },
    });
    const beta = created.body.organization_id as string;
    const betaAdmin = await stack.token(['platform:admin'], 'beta-admin', beta);
    const email = newEmail();
    const { linkingCode, employee } = await inviteEmployee(stack, admin, email);
    const betaPerson = await signedInPerson(stack, { organization_id: beta });
    expectProblem(
      (await requestVerificationCode(stack, betaPerson, linkingCode, email)).reply,
      404,
      'linking_code_unknown',
    );
    const alpha = await signedInPerson(stack);
    const wrongAddress = await requestVerificationCode(stack, alpha, linkingCode, newEmail());
    expectProblem(wrongAddress.reply, 404, 'linking_code_unknown');
    const reads = {
      [`/v1/employees/${employee.employee_id}`]: 'employee_not_found',
      [`/v1/passports/${alpha.passport_id}/attestations`]: 'passport_not_found',
    };
    for (const [path, code] of Object.entries(reads))
      expectProblem(await call(stack.baseUrl, 'GET', path, { token: betaAdmin }), 404, code);
    const list = await call(stack.baseUrl, 'GET', '/v1/employees', { token: betaAdmin });
    expect(list.body.data).toEqual([]);
  });
});
