import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { tokenIssuer } from '../../app/config';
import { passportSettings } from '../../app/deps';
import { didKeyOfJwk, didWebDocumentUrl, ed25519JwkOfDidKey, type Ed25519PublicJwk } from '../../domain/identity/did';
import { createKeyRing } from '../../services/identity/issuance/key-ring';
import { signAsPassport, verifyPassportSignature } from '../../services/identity/passports/signing';
import { authenticateSession } from '../../services/identity/issuance/session-tokens';
import { call, client, expectProblem } from '../support/http';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

let writer: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  writer = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write']));
  admin = client(stack.baseUrl, await stack.token(['platform:admin']));
});

const db = () => stack.database.db;
const signing = () => ({ db: db(), settings: passportSettings(stack.config) });
const sessionDeps = () => ({
  db: db(),
  keyRing: createKeyRing(db()),
  settings: { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE },
});

async function createAgent(name = 'Summarizer') {
  const reply = await writer('POST', '/v1/passports', {
    json: { type: 'agent', name, capabilities: ['summarize', 'capability://acme/translate'] },
  });
  expect(reply.status).toBe(201);
  return reply.body.data as { passportId: string; did: string; publicKeyJwk: JWK & { kid: string }; didKey: string };
}

/** A device: an Ed25519 key pair it keeps, and the proofs it signs. */
async function newDevice() {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { jwk, kid, privateKey, deviceId: `device-${randomUUID().slice(0, 8)}` };
}

function proof(privateKey: KeyLike, claims: Record<string, unknown>, header: { kid?: string; typ?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', typ: 'device-proof+jwt', ...header })
    .setIssuedAt()
    .sign(privateKey);
}

async function registrationChallenge(name = 'Ada Lovelace'): Promise<string> {
  const reply = await admin('POST', '/v1/passports/device-challenges', { json: { name, capabilities: ['review'] } });
  expect(reply.status).toBe(201);
  return reply.body.challenge as string;
}

async function registerPerson() {
  const device = await newDevice();
  const challenge = await registrationChallenge();
  const reply = await call(stack.baseUrl, 'POST', '/v1/passports/devices', {
    json: {
      proof: await proof(device.privateKey, { challenge, deviceId: device.deviceId }),
      deviceId: device.deviceId,
      publicKey: device.jwk,
    },
  });
  expect(reply.status).toBe(201);
  return { ...device, passportId: reply.body.data.passportId as string, did: reply.body.data.did as string };
}

async function signInChallenge(passportId: string): Promise<string> {
  const reply = await call(stack.baseUrl, 'POST', `/v1/passports/${passportId}/sign-in-challenges`);
  expect(reply.status).toBe(201);
  return reply.body.challenge as string;
}

describe('POST /v1/passports', () => {
  it('creates an agent’s Passport: a did:web under PUBLIC_BASE_URL, a key made here and sealed, and its provenance', async () => {
    const reply = await writer('POST', '/v1/passports', {
      json: { type: 'agent', name: 'Summarizer', metadata: { team: 'ml' }, capabilities: ['summarize'] },
    });
    expect(reply.status).toBe(201);
    const host = new URL(stack.baseUrl).host.replace(':', '%3A');
    expect(reply.body).toEqual({
      data: {
        passportId: expect.stringMatching(/^pp_[0-9a-f-]{36}$/),
        did: `did:web:${host}:passports:${reply.body.data.passportId}`,
        type: 'agent',
        name: 'Summarizer',
        publicKey: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/),
        publicKeyJwk: {
          kty: 'OKP',
          crv: 'Ed25519',
          x: expect.any(String),
          kid: expect.any(String),
          alg: 'EdDSA',
          use: 'sig',
        },
        didKey: expect.stringMatching(/^did:key:z6Mk/),
        createdAt: expect.any(String),
      },
      meta: { timestamp: expect.any(String), requestId: reply.headers.get('x-request-id') },
    });
    const { passportId, publicKeyJwk } = reply.body.data;
    expect(publicKeyJwk.kid).toBe(await calculateJwkThumbprint(publicKeyJwk));
    expect(reply.headers.get('location')).toBe(`/v1/passports/${passportId}`);

    const key = await db()('passport_keys').where({ passport_id: passportId }).first();
    expect(key).toMatchObject({ kid: publicKeyJwk.kid, source: 'server', status: 'active' });
    expect(key.sealed_private_key).toMatch(/^v1\./);
    expect(JSON.stringify(key)).not.toMatch(/"d"/);

    expect(await provenanceEntry(db(), passportId, 'created')).toMatchObject({
      action: 'passport_created',
      output_data: {
        did: reply.body.data.did,
        kid: publicKeyJwk.kid,
        key_source: 'server',
        organization_id: 'org_default',
      },
    });
    expect(await eventKinds(db(), passportId, 'created')).toEqual(['passport.created']);
  });

  it('refuses to make a person’s key: an individual Passport points at the device ceremony', async () => {
    const reply = await writer('POST', '/v1/passports', { json: { type: 'individual', name: 'Ada' } });
    expectProblem(reply, 400, 'invalid_request');
    expect(reply.body.detail).toMatch(/device/);
    expect(reply.body.ceremony).toEqual({
      challenge: 'POST /v1/passports/device-challenges',
      register: 'POST /v1/passports/devices',
    });
    expect(await db()('passports').where({ name: 'Ada', type: 'individual' }).first()).toBeUndefined();
  });

  it('gives the organization one Passport, created with platform:admin', async () => {
    const refused = await writer('POST', '/v1/passports', { json: { type: 'organization', name: 'Acme' } });
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body).toMatchObject({
      detail: 'An organization Passport needs the scope platform:admin',
      required_scope: 'platform:admin',
    });
    const created = await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Acme' } });
    expect(created.status).toBe(201);
    const organizationPassport = `/v1/passports/${created.body.data.passportId as string}`;
    const kid = created.body.data.publicKeyJwk.kid as string;
    for (const [path, json] of [
      [`${organizationPassport}/keys/rotate`, { passphrase: 'x' }],
      [`${organizationPassport}/keys/${kid}/revoke`, { reason: 'lost' }],
    ] as const) {
      const keysRefused = await writer('POST', path, { json });
      expectProblem(keysRefused, 403, 'insufficient_scope');
      expect(keysRefused.body).toMatchObject({
        detail: 'The organization Passport’s keys need the scope platform:admin',
        required_scope: 'platform:admin',
      });
    }
    expect((await admin('GET', organizationPassport)).body.keys).toEqual([
      expect.objectContaining({ kid, status: 'active' }),
    ]);
    const again = await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Acme again' } });
    expectProblem(again, 409, 'organization_passport_exists');
    expect(again.body.passport_id).toBe(created.body.data.passportId);
    const read = await admin('GET', `/v1/passports/${created.body.data.passportId}`);
    expect(read.body).toMatchObject({ type: 'organization', owner: 'did:web:localhost:orgs:default' });
  });

  it('answers 400 for bad input, 401 without a token, and the same Passport to a retry with its Idempotency-Key', async () => {
    const bad = await writer('POST', '/v1/passports', {
      json: { type: 'robot', name: '', capabilities: ['Not A Capability'] },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'capabilities.0',
      'name',
      'type',
    ]);
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/passports', { json: { type: 'agent', name: 'x' } }),
      401,
      'unauthorized',
    );

    const headers = { 'idempotency-key': `pp-${randomUUID()}` };
    const first = await writer('POST', '/v1/passports', { headers, json: { type: 'agent', name: 'Once' } });
    const second = await writer('POST', '/v1/passports', { headers, json: { type: 'agent', name: 'Once' } });
    expect(second.body.data.passportId).toBe(first.body.data.passportId);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await db()('passports').where({ name: 'Once' })).toHaveLength(1);
  });
});

describe('reading a Passport', () => {
  it('answers the spec’s read shape, with capability URIs and its keys; another organization’s is not found', async () => {
    const agent = await createAgent();
    const reply = await writer('GET', `/v1/passports/${agent.passportId}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: agent.passportId,
      owner: 'did:web:localhost:orgs:default',
      capabilities: ['capability://summarize', 'capability://acme/translate'],
      createdAt: expect.any(String),
      did: agent.did,
      keys: [{ kid: agent.publicKeyJwk.kid, status: 'active', source: 'server', didKey: agent.didKey }],
    });

    const now = new Date();
    await db()('organizations').insert({
      organization_id: 'org_other',
      org_did: 'did:web:other.example',
      name: 'Other',
      deployment_mode: 'cloud',
      autonomy_profile: 'balanced',
      data_residency_tier: 'global',
      created_at: now,
      updated_at: now,
    });
    await db()('passports').insert({
      passport_id: 'pp_elsewhere',
      did: 'did:web:other.example:passports:pp_elsewhere',
      type: 'agent',
      name: 'x',
      organization_id: 'org_other',
      metadata: '{}',
      capabilities: [],
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    expectProblem(await writer('GET', '/v1/passports/pp_elsewhere'), 404, 'passport_not_found');
    expectProblem(await writer('GET', '/v1/passports/pp_elsewhere/jwks'), 404, 'passport_not_found');
    expectProblem(await writer('GET', `/v1/passports/pp_${randomUUID()}`), 404, 'passport_not_found');
    expectProblem(await writer('GET', '/v1/passports/not-a-passport'), 400, 'validation_failed');
  });

  it('resolves its did:web where the method says, as application/did+json, naming the keys of its JWKS and their did:key aliases', async () => {
    const agent = await createAgent();
    const url = didWebDocumentUrl(agent.did, 'http')!;
    expect(url).toBe(`${stack.baseUrl}/passports/${agent.passportId}/did.json`);
    const resolved = await fetch(url);
    expect(resolved.status).toBe(200);
    expect(resolved.headers.get('content-type')).toMatch(/^application\/did\+json/);
    const document = (await resolved.json()) as {
      id: string;
      alsoKnownAs: string[];
      verificationMethod: Array<{ id: string; type: string; publicKeyJwk: Ed25519PublicJwk & { kid: string } }>;
      authentication: string[];
    };
    expect(document.id).toBe(agent.did);

    const jwks = await writer('GET', `/v1/passports/${agent.passportId}/jwks`);
    const publicJwks = await call(stack.baseUrl, 'GET', `/passports/${agent.passportId}/jwks.json`);
    expect(publicJwks.body).toEqual(jwks.body);
    expect(jwks.body.keys).toEqual([agent.publicKeyJwk]);
    expect(document.verificationMethod).toEqual(
      jwks.body.keys.map((key: JWK & { kid: string }) => ({
        id: `${agent.did}#${key.kid}`,
        type: 'JsonWebKey',
        controller: agent.did,
        publicKeyJwk: key,
      })),
    );
    expect(document.authentication).toEqual([`${agent.did}#${agent.publicKeyJwk.kid}`]);
    expect(document.alsoKnownAs).toEqual([agent.didKey]);
    expect(ed25519JwkOfDidKey(agent.didKey)?.x).toBe(agent.publicKeyJwk.x);

    const spec = await writer('GET', `/v1/passports/${agent.passportId}/did`);
    expect(spec.body).toEqual({
      id: agent.did,
      publicKey: [
        {
          id: `${agent.did}#${agent.publicKeyJwk.kid}`,
          type: 'Ed25519VerificationKey2018',
          controller: agent.did,
          publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY'),
        },
      ],
      authentication: [
        { type: 'Ed25519SignatureAuthentication2018', publicKey: `${agent.did}#${agent.publicKeyJwk.kid}` },
      ],
    });
    expectProblem(
      await call(stack.baseUrl, 'GET', `/passports/pp_${randomUUID()}/did.json`),
      404,
      'passport_not_found',
    );
  });
});

describe('rotating and revoking keys', () => {
  it('rotates: the new key signs, the old one verifies what it signed until verify_until, and both are published', async () => {
    const agent = await createAgent();
    const before = await signAsPassport(signing(), agent.passportId, { sub: 'task-1' }, { ttlSeconds: 600 });
    expect(before).toMatchObject({ ok: true, kid: agent.publicKeyJwk.kid });

    const rotated = await writer('POST', `/v1/passports/${agent.passportId}/keys/rotate`, {
      json: { passphrase: 'correct horse battery staple' },
    });
    expect(rotated.status).toBe(200);
    const newKid = rotated.body.key.kid as string;
    expect(newKid).not.toBe(agent.publicKeyJwk.kid);
    expect(rotated.body.retired).toEqual([
      expect.objectContaining({ kid: agent.publicKeyJwk.kid, status: 'retired', verifyUntil: expect.any(String) }),
    ]);
    const verifyUntil = Date.parse(rotated.body.retired[0].verifyUntil);
    expect(verifyUntil - Date.now()).toBeGreaterThan((stack.config.PASSPORT_KEY_VERIFY_WINDOW_SECONDS - 60) * 1000);

    const after = await signAsPassport(signing(), agent.passportId, { sub: 'task-2' }, { ttlSeconds: 600 });
    expect(after).toMatchObject({ ok: true, kid: newKid });
    expect(before.ok && (await verifyPassportSignature(db(), before.token))).toMatchObject({
      ok: true,
      kid: agent.publicKeyJwk.kid,
      payload: { sub: 'task-1', iss: agent.did },
    });
    expect(after.ok && (await verifyPassportSignature(db(), after.token))).toMatchObject({ ok: true, kid: newKid });
    expect(
      await verifyPassportSignature(db(), before.ok ? before.token : '', { now: new Date(verifyUntil + 1000) }),
    ).toMatchObject({ ok: false });

    const jwks = await writer('GET', `/v1/passports/${agent.passportId}/jwks`);
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid).sort()).toEqual(
      [agent.publicKeyJwk.kid, newKid].sort(),
    );
    expect(await provenanceEntry(db(), agent.passportId, `key_rotated:${newKid}`)).toMatchObject({
      action: 'passport_key_rotated',
      output_data: { retired_kids: [agent.publicKeyJwk.kid] },
    });
    expect(await eventKinds(db(), agent.passportId, `key_rotated:${newKid}`)).toEqual(['passport.key_rotated']);
    expect(JSON.stringify(await provenanceEntry(db(), agent.passportId, `key_rotated:${newKid}`))).not.toContain(
      'correct horse',
    );

    expectProblem(
      await writer('POST', `/v1/passports/${agent.passportId}/keys/rotate`, { json: {} }),
      400,
      'validation_failed',
    );
  });

  it('revokes: the key is unusable at once, what it signed no longer verifies, and it leaves the DID document', async () => {
    const agent = await createAgent();
    const signed = await signAsPassport(signing(), agent.passportId, { sub: 'payment-9' }, { ttlSeconds: 600 });
    if (!signed.ok) throw new Error(signed.detail);

    const revoked = await writer('POST', `/v1/passports/${agent.passportId}/keys/${agent.publicKeyJwk.kid}/revoke`, {
      json: { reason: 'key exposed in a log' },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({
      kid: agent.publicKeyJwk.kid,
      status: 'revoked',
      revokeReason: 'key exposed in a log',
      revokedAt: expect.any(String),
    });

    expect(await verifyPassportSignature(db(), signed.token)).toEqual({
      ok: false,
      reason: expect.stringMatching(/revoked/),
    });
    expect(await signAsPassport(signing(), agent.passportId, { sub: 'payment-10' }, { ttlSeconds: 600 })).toMatchObject(
      { ok: false, code: 'no_active_key' },
    );
    const document = await call(stack.baseUrl, 'GET', `/passports/${agent.passportId}/did.json`);
    expect(JSON.parse(document.text)).toMatchObject({ verificationMethod: [], alsoKnownAs: [] });
    expect(await provenanceEntry(db(), agent.passportId, `key_revoked:${agent.publicKeyJwk.kid}`)).toMatchObject({
      action: 'passport_key_revoked',
      input_data: { reason: 'key exposed in a log' },
    });
    expect(await eventKinds(db(), agent.passportId, `key_revoked:${agent.publicKeyJwk.kid}`)).toEqual([
      'passport.key_revoked',
    ]);

    expectProblem(
      await writer('POST', `/v1/passports/${agent.passportId}/keys/${agent.publicKeyJwk.kid}/revoke`, {
        json: { reason: 'again' },
      }),
      409,
      'passport_key_already_revoked',
    );
    expectProblem(
      await writer('POST', `/v1/passports/${agent.passportId}/keys/${'A'.repeat(43)}/revoke`, {
        json: { reason: 'x' },
      }),
      404,
      'passport_key_not_found',
    );
    expectProblem(
      await writer('POST', `/v1/passports/${agent.passportId}/keys/${agent.publicKeyJwk.kid}/revoke`, { json: {} }),
      400,
      'validation_failed',
    );

    // A rotation gives the agent a key to sign with again.
    await writer('POST', `/v1/passports/${agent.passportId}/keys/rotate`, { json: { passphrase: 'x' } });
    expect(await signAsPassport(signing(), agent.passportId, { sub: 'payment-10' }, { ttlSeconds: 600 })).toMatchObject(
      { ok: true },
    );
    expect(
      await signAsPassport(
        signing(),
        agent.passportId,
        {},
        { ttlSeconds: stack.config.PASSPORT_KEY_VERIFY_WINDOW_SECONDS + 1 },
      ),
    ).toMatchObject({ ok: false, code: 'lifetime_too_long' });
  });

  it('revokes a person’s device key only for an administrator of people: platform:write alone is refused', async () => {
    const person = await registerPerson();
    const revoke = (token: string) =>
      call(stack.baseUrl, 'POST', `/v1/passports/${person.passportId}/keys/${person.kid}/revoke`, {
        token,
        json: { reason: 'not yours to revoke' },
      });
    const refused = await revoke(await stack.token(['platform:read', 'platform:write']));
    expectProblem(refused, 403, 'insufficient_scope');
    expect(refused.body).toMatchObject({ required_scope: 'people:enroll' });
    // Another person is no administrator of people; another organization's administrator sees no such Passport.
    const other = await registerPerson();
    const otherSession = await call(stack.baseUrl, 'POST', `/v1/passports/${other.passportId}/sessions`, {
      json: {
        proof: await proof(
          other.privateKey,
          { challenge: await signInChallenge(other.passportId) },
          { kid: other.kid },
        ),
      },
    });
    expect(otherSession.status).toBe(201);
    expectProblem(await revoke(otherSession.body.sessionToken), 403, 'insufficient_scope');
    const organization = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: await stack.token(['cloud:admin:global'], 'operator'),
      json: { org_did: `did:web:${randomUUID().slice(0, 8)}.example`, name: 'Elsewhere' },
    });
    expect(organization.status).toBe(201);
    expectProblem(
      await revoke(await stack.token(['platform:admin'], 'foreign-admin', organization.body.organization_id)),
      404,
      'passport_not_found',
    );
    expect(await db()('passport_keys').where({ kid: person.kid }).first()).toMatchObject({ status: 'active' });

    const enroller = await revoke(await stack.token(['platform:write', 'people:enroll']));
    expect(enroller.status).toBe(200);
    expect(enroller.body.key).toMatchObject({ kid: person.kid, status: 'revoked' });
    const second = await registerPerson();
    const byAdmin = await admin('POST', `/v1/passports/${second.passportId}/keys/${second.kid}/revoke`, {
      json: { reason: 'phone lost' },
    });
    expect(byAdmin.status).toBe(200);
  });
});

describe('the device ceremony', () => {
  it('mints a person’s Passport from a device’s proof, keeping only the public key', async () => {
    const device = await newDevice();
    const challenge = await registrationChallenge('Grace Hopper');
    const reply = await call(stack.baseUrl, 'POST', '/v1/passports/devices', {
      json: {
        proof: await proof(device.privateKey, { challenge, deviceId: device.deviceId }),
        deviceId: device.deviceId,
        publicKey: didKeyOfJwk(device.jwk as Ed25519PublicJwk),
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({
      type: 'individual',
      name: 'Grace Hopper',
      publicKeyJwk: { kid: device.kid, x: device.jwk.x },
    });
    const key = await db()('passport_keys').where({ kid: device.kid }).first();
    expect(key).toMatchObject({
      passport_id: reply.body.data.passportId,
      source: 'device',
      device_id: device.deviceId,
      status: 'active',
      sealed_private_key: null,
    });
    expect(await provenanceEntry(db(), reply.body.data.passportId, 'created')).toMatchObject({
      actor: { type: 'human', did: reply.body.data.did },
      output_data: { key_source: 'device' },
    });
    const read = await writer('GET', `/v1/passports/${reply.body.data.passportId}`);
    expect(read.body).toMatchObject({ owner: reply.body.data.did, capabilities: ['capability://review'] });
    expectProblem(
      await writer('POST', `/v1/passports/${reply.body.data.passportId}/keys/rotate`, { json: { passphrase: 'x' } }),
      409,
      'passport_keys_on_device',
    );
  });

  it('refuses a replayed or expired challenge, a wrong signature, another deviceId and a private key', async () => {
    const register = (json: Record<string, unknown>) => call(stack.baseUrl, 'POST', '/v1/passports/devices', { json });
    const device = await newDevice();
    const challenge = await registrationChallenge();
    const answer = {
      proof: await proof(device.privateKey, { challenge, deviceId: device.deviceId }),
      deviceId: device.deviceId,
      publicKey: device.jwk,
    };

    const impostor = await newDevice();
    const forged = await register({
      ...answer,
      proof: await proof(impostor.privateKey, { challenge, deviceId: device.deviceId }),
    });
    expectProblem(forged, 401, 'device_proof_invalid');
    expectProblem(await register({ ...answer, deviceId: 'another-device' }), 401, 'device_proof_invalid');
    expectProblem(
      await register({
        ...answer,
        proof: await proof(device.privateKey, { challenge, deviceId: device.deviceId }, { typ: 'JWT' }),
      }),
      401,
      'device_proof_invalid',
    );
    const withPrivate = await register({ ...answer, publicKey: await exportJWK(device.privateKey) });
    expectProblem(withPrivate, 400, 'validation_failed');
    expect(withPrivate.body.errors).toEqual([
      expect.objectContaining({ field: 'publicKey', message: expect.stringMatching(/private key/) }),
    ]);
    // A did:key of the right form whose multicodec is not Ed25519's (0xed01).
    expectProblem(
      await register({ ...answer, publicKey: 'did:key:z6Mk1111111111111111111111111111111111111111111' }),
      400,
      'validation_failed',
    );

    expect((await register(answer)).status).toBe(201);
    expectProblem(await register(answer), 401, 'challenge_used');

    const late = await newDevice();
    const lateChallenge = await registrationChallenge();
    await db()('passport_challenges')
      .update({ expires_at: new Date(Date.now() - 1000) })
      .whereNull('consumed_at')
      .where('purpose', 'registration');
    expectProblem(
      await register({
        proof: await proof(late.privateKey, { challenge: lateChallenge, deviceId: late.deviceId }),
        deviceId: late.deviceId,
        publicKey: late.jwk,
      }),
      401,
      'challenge_expired',
    );
    expectProblem(
      await register({
        proof: await proof(late.privateKey, { challenge: 'never-issued', deviceId: late.deviceId }),
        deviceId: late.deviceId,
        publicKey: late.jwk,
      }),
      401,
      'challenge_unknown',
    );

    // Long-expired challenges are cleared as new ones are made.
    await db()('passport_challenges')
      .update({ expires_at: new Date(Date.now() - 2 * 3_600_000) })
      .whereNull('consumed_at')
      .where('purpose', 'registration');
    const expiredBefore = await db()('passport_challenges').where('expires_at', '<', new Date(Date.now() - 3_600_000));
    expect(expiredBefore.length).toBeGreaterThan(0);
    await registrationChallenge();
    expect(
      await db()('passport_challenges').whereIn(
        'challenge_hash',
        expiredBefore.map((row: { challenge_hash: string }) => row.challenge_hash),
      ),
    ).toEqual([]);
  });

  it('signs a person in with an active device key, and refuses replay, expiry, a wrong signature and a revoked key', async () => {
    const person = await registerPerson();
    const signIn = async (signed: string) =>
      call(stack.baseUrl, 'POST', `/v1/passports/${person.passportId}/sessions`, { json: { proof: signed } });

    const challenge = await signInChallenge(person.passportId);
    const answer = await proof(person.privateKey, { challenge }, { kid: person.kid });
    const session = await signIn(answer);
    expect(session.status).toBe(201);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect(session.body).toMatchObject({
      tokenType: 'session',
      passportId: person.passportId,
      did: person.did,
      credential: { type: 'device_key', id: person.kid },
    });
    expect(await authenticateSession(sessionDeps(), session.body.sessionToken)).toMatchObject({
      ok: true,
      session: { passport_id: person.passportId, organization_id: 'org_default' },
    });

    expectProblem(await signIn(answer), 401, 'challenge_used');
    const impostor = await newDevice();
    expectProblem(
      await signIn(
        await proof(impostor.privateKey, { challenge: await signInChallenge(person.passportId) }, { kid: person.kid }),
      ),
      401,
      'device_proof_invalid',
    );
    expectProblem(
      await signIn(await proof(person.privateKey, { challenge: await signInChallenge(person.passportId) })),
      401,
      'device_proof_invalid',
    );
    // A registration challenge, or another person's sign-in challenge, does not sign this one in.
    expectProblem(
      await signIn(await proof(person.privateKey, { challenge: await registrationChallenge() }, { kid: person.kid })),
      401,
      'challenge_unknown',
    );
    const other = await registerPerson();
    expectProblem(
      await signIn(
        await proof(person.privateKey, { challenge: await signInChallenge(other.passportId) }, { kid: person.kid }),
      ),
      401,
      'challenge_unknown',
    );

    const stale = await signInChallenge(person.passportId);
    await db()('passport_challenges')
      .update({ expires_at: new Date(Date.now() - 1000) })
      .where({ passport_id: person.passportId })
      .whereNull('consumed_at');
    expectProblem(
      await signIn(await proof(person.privateKey, { challenge: stale }, { kid: person.kid })),
      401,
      'challenge_expired',
    );

    const revoked = await admin('POST', `/v1/passports/${person.passportId}/keys/${person.kid}/revoke`, {
      json: { reason: 'phone lost' },
    });
    expect(revoked.status).toBe(200);
    expect(await authenticateSession(sessionDeps(), session.body.sessionToken)).toMatchObject({ ok: false });
    const refused = await signIn(
      await proof(person.privateKey, { challenge: await signInChallenge(person.passportId) }, { kid: person.kid }),
    );
    expectProblem(refused, 401, 'device_key_revoked');
    expect(refused.body.detail).toMatch(/phone lost/);

    const agent = await createAgent();
    expectProblem(
      await call(stack.baseUrl, 'POST', `/v1/passports/${agent.passportId}/sign-in-challenges`),
      404,
      'passport_not_found',
    );
  });
});
