import { randomUUID } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { startExtraApp } from '../support/app';
import { client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { plainConnector } from '../support/connectors';
import { useStack } from '../support/stack';

const stack = useStack({ DEPLOYMENT_MODE: 'cloud' });
const anonymous = () => client(stack.baseUrl);

/** The document's signature checked against the JWKS the deployment publishes, as an outside verifier would. */
async function verifiedPayload(document: Record<string, unknown>): Promise<Record<string, unknown>> {
  const jwks = await anonymous()('GET', '/.well-known/jwks.json');
  const { payload, protectedHeader } = await compactVerify(document.signature as string, createLocalJWKSet(jwks.body));
  expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'deployment-compliance+jws' });
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
}

describe('deployment compliance', () => {
  it('reports this deployment’s real counts and invariants, signed with the key its JWKS publishes', async () => {
    await signedInPerson(stack, { name: 'Ada' });
    const { db } = stack.database;
    const reply = await anonymous()('GET', '/v1/deployment/compliance');
    expect(reply.status).toBe(200);
    const passports = Number((await db('passports').count({ n: '*' }).first())!.n);
    const attestations = Number((await db('passport_attestations').count({ n: '*' }).first())!.n);
    expect(reply.body.compliance).toMatchObject({
      human_passport_minting: 'device_only',
      ledger_sync_status: 'synced',
      passport_count: passports,
      verification_count: attestations,
    });
    expect(passports).toBeGreaterThan(0);
    expect(reply.body.invariants).toEqual({
      server_side_key_generation: false,
      private_key_access: false,
      biometric_binding_hash_used: false,
      // Ada was minted by a device key, not a passkey: the report says so rather than claiming WebAuthn.
      webauthn_required_for_humans: false,
    });
    expect(
      reply.body.invariant_checks.find((c: { name: string }) => c.name === 'webauthn_required_for_humans'),
    ).toMatchObject({ evidence: expect.stringMatching(/^[1-9]\d* active person Passport/) });
    const { signature, ...document } = reply.body;
    expect(await verifiedPayload(reply.body)).toEqual(document);
    expect(signature).toEqual(expect.any(String));

    // A changed document no longer verifies against the published key.
    const [header, payload, sig] = (signature as string).split('.');
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    forged.invariants.private_key_access = true;
    const tampered = `${header!}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${sig!}`;
    await expect(verifiedPayload({ signature: tampered })).rejects.toThrow();
    expect(decodeProtectedHeader(signature).kid).toEqual(expect.any(String));
  });

  it('reads each invariant from the tables: a person’s key held by the service shows at once', async () => {
    const ada = await signedInPerson(stack, { name: 'Held' });
    const { db } = stack.database;
    const kid = `held-${randomUUID()}`;
    await db('passport_keys').insert({
      kid,
      passport_id: ada.passport_id,
      public_jwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'AA', kid }),
      sealed_private_key: 'sealed-for-the-test',
      source: 'server',
      status: 'active',
      created_at: new Date(),
    });
    try {
      const reply = await anonymous()('GET', '/v1/deployment/compliance');
      expect(reply.body.invariants).toMatchObject({ server_side_key_generation: true, private_key_access: true });
      expect(reply.body.compliance.human_passport_minting).toBe('server_assisted');
    } finally {
      await db('passport_keys').where({ kid }).delete();
    }
    const after = await anonymous()('GET', '/v1/deployment/compliance');
    expect(after.body.invariants).toMatchObject({ server_side_key_generation: false, private_key_access: false });
  });

  it('publishes the network verification, signed, with this deployment’s blast radius', async () => {
    const reply = await anonymous()('GET', '/v1/deployment/network-verification');
    expect(reply.status).toBe(200);
    const organizations = Number((await stack.database.db('organizations').count({ n: '*' }).first())!.n);
    expect(reply.body).toMatchObject({
      network_verification: 'local_only',
      risks: {
        walled_garden_possible: true,
        blast_radius: expect.stringContaining(`${organizations} organization(s)`),
      },
    });
    expect(reply.body.mitigations.join('\n')).toContain('/v1/ledger/checkpoint');
    const { signature: _signature, ...document } = reply.body;
    expect(await verifiedPayload(reply.body)).toEqual(document);
  });
});

describe('the operator’s health of every organization', () => {
  it('pages through organizations with their own checks; one with a disconnected connector is degraded', async () => {
    const operator = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
    const created = await operator('POST', '/v1/organizations', {
      json: { org_did: 'did:web:stuck.example', name: 'Stuck' },
    });
    const stuck = created.body.organization_id as string;
    expect(
      (await operator('PUT', '/v1/marketplace/connectors/ledgerly', { json: plainConnector('Ledgerly') })).status,
    ).toBe(200);
    const member = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write'], 'member', stuck));
    const installed = await member('POST', '/v1/marketplace/connectors/ledgerly/install', {
      json: { deployment_mode: 'cloud', config: { workspace: 'x' }, granted_permissions: [] },
    });
    // The provider refused the refresh token: what the refresh leaves behind.
    await stack.database
      .db('connector_installations')
      .where({ installation_id: installed.body.installation_id })
      .update({ status: 'needs_reauth', status_reason: 'invalid_grant' });

    const first = await operator('GET', '/v1/admin/health/organizations?limit=1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, platform: { status: expect.any(String) } });
    expect(first.body.total_count).toBeGreaterThanOrEqual(2);
    const all = await operator('GET', '/v1/admin/health/organizations?limit=100');
    const item = all.body.data.find((o: { organization_id: string }) => o.organization_id === stuck);
    expect(item).toMatchObject({ name: 'Stuck', org_did: 'did:web:stuck.example' });
    expect(item.checks.find((c: { name: string }) => c.name === 'connectors_needing_reconnect')).toMatchObject({
      status: 'fail',
      value: 1,
    });
    expect(item.bucket).not.toBe('healthy');
    const other = all.body.data.find((o: { organization_id: string }) => o.organization_id === 'org_default');
    expect(other.checks.find((c: { name: string }) => c.name === 'connectors_needing_reconnect').value).toBe(0);
  });

  it('is the operator’s only, and exists only in cloud mode', async () => {
    expectProblem(
      await client(stack.baseUrl, await stack.token(['platform:admin'], 'admin'))(
        'GET',
        '/v1/admin/health/organizations',
      ),
      403,
      'insufficient_scope',
    );
    expectProblem(await anonymous()('GET', '/v1/admin/health/organizations'), 401, 'unauthorized');
    const selfHosted = await startExtraApp(stack, { config: { DEPLOYMENT_MODE: 'self-hosted' } });
    try {
      const operator = client(selfHosted.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
      expectProblem(await operator('GET', '/v1/admin/health/organizations'), 404, 'cloud_mode_required');
    } finally {
      await selfHosted.close();
    }
  });
});
