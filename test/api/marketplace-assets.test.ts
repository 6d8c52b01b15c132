import { SignJWT } from 'jose';
import { MANIFEST_SIGNATURE_TYP } from '../../domain/marketplace/assets';
import { manifestDigest } from '../../services/assets/review';
import { eventually } from '../support/eventually';
import { client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

jest.setTimeout(120_000);

const stack = useStack();
let publisher: SignedInPerson;
let member: ReturnType<typeof client>;
let colleague: ReturnType<typeof client>;
let administrator: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;
let outsider: ReturnType<typeof client>;

/** A manifest signed as its publisher signs it: a JWS over the digest of everything but the signature. */
async function signed(
  signer: SignedInPerson,
  fields: Record<string, unknown> = {},
  publishedBy = signer.did,
): Promise<Record<string, unknown>> {
  const manifest: Record<string, unknown> = {
    name: 'Invoice reader',
    version: '1.2.0',
    description: 'Reads invoices into tasks',
    capabilities: { required_scopes: ['tasks:submit', 'agents:read'] },
    ...fields,
    provenance: { source: 'https://git.example/invoice-reader', publishedBy },
  };
  const signature = await new SignJWT({ manifest_sha256: manifestDigest(manifest) })
    .setProtectedHeader({ alg: 'EdDSA', kid: signer.kid, typ: MANIFEST_SIGNATURE_TYP })
    .setIssuer(signer.did)
    .setIssuedAt()
    .sign(signer.privateKey);
  return { ...manifest, provenance: { ...(manifest.provenance as object), signature } };
}

async function submit(body: Record<string, unknown>, as = member) {
  const reply = await as('POST', '/v1/marketplace/assets', {
    json: { name: 'Invoice reader', asset_type: 'agent', ...body },
  });
  expect(reply.status).toBe(201);
  return reply.body as { id: string; review_status: string };
}

async function reviewed(id: string) {
  const reply = await eventually(
    () => member('GET', `/v1/marketplace/assets/${id}`),
    (seen) => seen.status === 200 && seen.body.review_status !== 'pending',
  );
  return reply.body;
}

beforeAll(async () => {
  publisher = await signedInPerson(stack, { name: 'Publisher' });
  member = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write'], 'asset-member'));
  colleague = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write'], 'asset-colleague'));
  administrator = client(stack.baseUrl, await stack.token(['platform:admin'], 'asset-admin'));
  reader = client(stack.baseUrl, await stack.token(['platform:read'], 'asset-reader'));
  const created = await client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'))(
    'POST',
    '/v1/organizations',
    { json: { org_did: 'did:web:assets-other.example', name: 'Other' } },
  );
  expect(created.status).toBe(201);
  outsider = client(
    stack.baseUrl,
    await stack.token(['platform:read', 'platform:write'], 'asset-outsider', created.body.organization_id),
  );
});

describe('submitting an asset', () => {
  it('answers pending, and the review approves a signed manifest with each step recorded', async () => {
    const pending = await submit({ visibility: 'global', manifest: await signed(publisher) });
    expect(pending).toMatchObject({
      review_status: 'pending',
      lifecycle_stage: 'production',
      visibility: 'global',
      version: '1.2.0',
      trust_tier: null,
      install_count: 0,
    });
    const asset = await reviewed(pending.id);
    expect(asset).toMatchObject({
      review_status: 'approved',
      trust_tier: 'community',
      review_reasons: [],
      publisher_did: publisher.did,
      review_checks: [
        { check: 'manifest', passed: true, reasons: [] },
        { check: 'provenance', passed: true, reasons: [] },
      ],
    });
    expect(asset.reviewed_at).not.toBeNull();
    const records = await stack.database.db('ledger_entries').where({ subject_id: pending.id }).pluck('step_id');
    expect(records.sort()).toEqual(['review:concluded', 'review:manifest', 'review:provenance', 'submitted']);
  });

  it('rejects a manifest that breaks the schema, semver and the scope allow-list, with every reason', async () => {
    const manifest = await signed(publisher, {
      version: 'one',
      description: undefined,
      capabilities: { required_scopes: ['platform:admin', 'tasks:submit'] },
    });
    const asset = await reviewed((await submit({ manifest })).id);
    expect(asset.review_status).toBe('rejected');
    expect(asset.trust_tier).toBeNull();
    expect(asset.review_reasons).toEqual(
      expect.arrayContaining([
        "manifest: manifest must have required property 'description'",
        'manifest: manifest.version one is not a semantic version',
        'manifest: the scope platform:admin is not one an asset may ask for',
      ]),
    );
  });

  it('rejects a manifest larger than the limit', async () => {
    const asset = await reviewed(
      (await submit({ manifest: await signed(publisher, { readme: 'x'.repeat(70 * 1024) }) })).id,
    );
    expect(asset.review_status).toBe('rejected');
    expect(asset.review_reasons.join('\n')).toMatch(/the manifest is \d+ bytes; at most 65536/);
  });

  it('rejects a signature by someone other than publishedBy, and a manifest changed after signing', async () => {
    const impostor = await signedInPerson(stack, { name: 'Impostor' });
    const forged = await reviewed((await submit({ manifest: await signed(impostor, {}, publisher.did) })).id);
    expect(forged.review_status).toBe('rejected');
    expect(forged.review_reasons.join('\n')).toContain(`not publishedBy ${publisher.did}`);

    const manifest = await signed(publisher);
    const tampered = await reviewed((await submit({ manifest: { ...manifest, version: '9.9.9' } })).id);
    expect(tampered.review_status).toBe('rejected');
    expect(tampered.review_reasons).toEqual([
      'provenance: the signature is over another manifest (manifest_sha256 differs)',
    ]);

    const unsigned = await reviewed((await submit({ manifest: { name: 'x', version: '1.0.0' } })).id);
    expect(unsigned.review_reasons).toContain(
      'provenance: the manifest names no provenance.publishedBy and provenance.signature',
    );
  });

  it('gives the trust tier the publisher’s Passport earns', async () => {
    const linked = await signedInPerson(stack, { name: 'Linked' });
    await stack.database.db('passports').where({ passport_id: linked.passport_id }).update({ identity_tier: 1 });
    expect((await reviewed((await submit({ manifest: await signed(linked) })).id)).trust_tier).toBe('verified');
    await stack.database.db('passports').where({ passport_id: linked.passport_id }).update({ identity_tier: 2 });
    expect((await reviewed((await submit({ manifest: await signed(linked) })).id)).trust_tier).toBe('certified');
    await stack.database.db('passports').where({ passport_id: linked.passport_id }).update({ type: 'organization' });
    expect((await reviewed((await submit({ manifest: await signed(linked) })).id)).trust_tier).toBe('enterprise');
  });

  it('refuses a body that does not fit, and a caller that may not submit', async () => {
    expectProblem(
      await member('POST', '/v1/marketplace/assets', { json: { asset_type: 'agent', manifest: {} } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await member('POST', '/v1/marketplace/assets', { json: { name: 'x', asset_type: 'robot', manifest: {} } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await member('POST', '/v1/marketplace/assets', {
        json: { name: 'x', asset_type: 'agent', visibility: 'public', manifest: {} },
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await reader('POST', '/v1/marketplace/assets', { json: { name: 'x', asset_type: 'agent', manifest: {} } }),
      403,
      'insufficient_scope',
    );
    expectProblem(await client(stack.baseUrl)('GET', '/v1/marketplace/assets'), 401, 'unauthorized');
  });
});

describe('listing assets', () => {
  const ids = { org_private: '', org_internal: '', global: '' };

  beforeAll(async () => {
    for (const visibility of ['org_private', 'org_internal', 'global'] as const)
      ids[visibility] = (
        await submit({
          name: `Seen ${visibility}`,
          asset_type: 'dataset',
          visibility,
          manifest: await signed(publisher),
        })
      ).id;
    for (const id of Object.values(ids)) await reviewed(id);
  });

  const listed = async (as: ReturnType<typeof client>, query = 'assetType=dataset') => {
    const reply = await as('GET', `/v1/marketplace/assets?${query}`);
    expect(reply.status).toBe(200);
    return (reply.body.data as Array<{ id: string }>).map((asset) => asset.id);
  };

  it('shows org_private to its submitter and administrators, org_internal to members, global to everyone', async () => {
    expect(await listed(member)).toEqual(expect.arrayContaining(Object.values(ids)));
    expect(await listed(administrator)).toEqual(expect.arrayContaining(Object.values(ids)));
    const seenByColleague = await listed(colleague);
    expect(seenByColleague).toEqual(expect.arrayContaining([ids.org_internal, ids.global]));
    expect(seenByColleague).not.toContain(ids.org_private);
    const seenOutside = await listed(outsider);
    expect(seenOutside).toContain(ids.global);
    expect(seenOutside).not.toContain(ids.org_internal);
    expect(seenOutside).not.toContain(ids.org_private);
    expectProblem(await outsider('GET', `/v1/marketplace/assets/${ids.org_internal}`), 404, 'asset_not_found');
    expectProblem(await colleague('GET', `/v1/marketplace/assets/${ids.org_private}`), 404, 'asset_not_found');
    expect((await outsider('GET', `/v1/marketplace/assets/${ids.global}`)).status).toBe(200);
  });

  it('filters by type and trust tier, pages with limit (default 20) and cursor', async () => {
    expect(await listed(member, 'assetType=dataset&trustTier=verified')).toEqual([]);
    expect(await listed(member, 'assetType=dataset&trustTier=community')).toEqual(
      expect.arrayContaining(Object.values(ids)),
    );
    const first = await member('GET', '/v1/marketplace/assets?assetType=dataset&limit=2');
    expect(first.body).toMatchObject({ has_more: true });
    expect(first.body.data).toHaveLength(2);
    const next = await member(
      'GET',
      `/v1/marketplace/assets?assetType=dataset&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(next.body.data.map((asset: { id: string }) => asset.id)).not.toContain(first.body.data[0].id);
    expectProblem(await member('GET', '/v1/marketplace/assets?trustTier=gold'), 400, 'validation_failed');
    expectProblem(await member('GET', '/v1/marketplace/assets?limit=101'), 400, 'validation_failed');
  });
});
