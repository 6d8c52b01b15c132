import { call } from '../support/http';
import { startStack, type Stack } from '../support/stack';

jest.setTimeout(120_000);

let stack: Stack;
let admin: string;
let member: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.token(['cloud:admin:global', 'platform:read'], 'operator');
  member = await stack.token(['platform:read', 'platform:write'], 'member');
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /v1/organizations', () => {
  it('creates an organization with the spec’s defaults, and its Location', async () => {
    const reply = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'did:web:gamma.example', name: 'Gamma' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      org_did: 'did:web:gamma.example',
      name: 'Gamma',
      slug: null,
      deployment_mode: 'cloud',
      autonomy_profile: 'balanced',
      data_residency_tier: 'global',
    });
    expect(reply.body.organization_id).toMatch(/^org_/);
    expect(reply.headers.get('location')).toBe(`/v1/organizations/${reply.body.organization_id}`);
    // The creation's answer adds the first administrator's invitation (none named here) to the organization.
    const { administrator, ...organization } = reply.body;
    expect(administrator).toBeNull();
    expect((await call(stack.baseUrl, 'GET', reply.headers.get('location')!, { token: admin })).body).toEqual(
      organization,
    );
  });

  it('starts the organization with the baseline safety domains', async () => {
    const reply = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'did:web:delta.example', name: 'Delta', autonomy_profile: 'paranoid', slug: 'delta' },
    });
    expect(reply.body).toMatchObject({ autonomy_profile: 'paranoid', slug: 'delta' });
    const domains = await stack.database
      .db('safety_domains')
      .where({ organization_id: reply.body.organization_id })
      .pluck('domain');
    expect(domains.sort()).toEqual(['finance', 'general', 'healthcare']);
  });

  it('refuses a taken org_did or slug with 409', async () => {
    await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'did:web:epsilon.example', name: 'Epsilon', slug: 'epsilon' },
    });
    const sameDid = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'did:web:epsilon.example', name: 'Other' },
    });
    expect(sameDid.status).toBe(409);
    expect(sameDid.body.type).toBe('/problems/organization_exists');
    expect(
      (
        await call(stack.baseUrl, 'POST', '/v1/organizations', {
          token: admin,
          json: { org_did: 'did:web:zeta.example', name: 'Zeta', slug: 'epsilon' },
        })
      ).status,
    ).toBe(409);
  });

  it('needs cloud:admin:global and a valid body', async () => {
    const refused = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: member,
      json: { org_did: 'did:web:eta.example', name: 'Eta' },
    });
    expect(refused.status).toBe(403);
    const invalid = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'not-a-did', name: '', autonomy_profile: 'reckless' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { field: string }) => error.field).sort()).toEqual([
      'autonomy_profile',
      'name',
      'org_did',
    ]);
  });
});

describe('GET /v1/organizations', () => {
  it('shows a member only its own organization, and the deployment administrator all, a page at a time', async () => {
    const own = await call(stack.baseUrl, 'GET', '/v1/organizations', { token: member });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ has_more: false, next_cursor: null, total_count: 1 });
    expect(own.body.data.map((org: { organization_id: string }) => org.organization_id)).toEqual(['org_default']);

    const first = await call(stack.baseUrl, 'GET', '/v1/organizations?limit=2', { token: admin });
    expect(first.body).toMatchObject({ has_more: true });
    expect(first.body.data).toHaveLength(2);
    const rest = await call(stack.baseUrl, 'GET', `/v1/organizations?limit=100&cursor=${first.body.next_cursor}`, {
      token: admin,
    });
    const all = [...first.body.data, ...rest.body.data].map((org: { organization_id: string }) => org.organization_id);
    expect(new Set(all).size).toBe(first.body.total_count);
  });

  it('answers another organization’s id with 404, as an unknown one', async () => {
    const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: admin,
      json: { org_did: 'did:web:theta.example', name: 'Theta' },
    });
    const other = await call(stack.baseUrl, 'GET', `/v1/organizations/${created.body.organization_id}`, {
      token: member,
    });
    const unknown = await call(stack.baseUrl, 'GET', '/v1/organizations/org_nobody', { token: member });
    expect([other.status, unknown.status]).toEqual([404, 404]);
    expect(other.body.type).toBe(unknown.body.type);
    expect((await call(stack.baseUrl, 'GET', '/v1/organizations/org_default', { token: member })).status).toBe(200);
  });
});
