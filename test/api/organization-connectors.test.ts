import { DEFAULT_ORGANIZATION_DID } from '../../domain/common/organizations';
import { client, expectProblem } from '../support/http';
import { plainConnector } from '../support/connectors';
import { useStack } from '../support/stack';

const stack = useStack();
let admin: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;
let installationId: string;

const webhook = (name: string) => ({
  orgId: 'org_default',
  connectorName: name,
  connectorType: 'webhook',
  configuration: { url: 'https://hooks.acme.example/finance', events: ['approval.decided'] },
});

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['platform:admin'], 'org-admin'));
  reader = client(stack.baseUrl, await stack.token(['platform:read'], 'org-reader'));
  const operator = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
  expect((await operator('PUT', '/v1/marketplace/connectors/crm', { json: plainConnector('CRM') })).status).toBe(200);
  const installed = await admin('POST', '/v1/marketplace/connectors/crm/install', {
    json: { deployment_mode: 'cloud', config: { workspace: 'sales' }, granted_permissions: [] },
  });
  expect(installed.status).toBe(201);
  installationId = installed.body.installation_id;
});

describe('organization connectors', () => {
  it('creates a webhook connector with its type’s capabilities, reads it and lists it', async () => {
    const created = await admin('POST', '/v1/connectors', { json: webhook('Finance alerts') });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      connectorId: expect.stringMatching(/^occ_/),
      orgId: 'org_default',
      name: 'Finance alerts',
      connectorType: 'webhook',
      status: 'active',
      capabilities: ['events:deliver'],
      installationId: null,
      configuration: { url: 'https://hooks.acme.example/finance', events: ['approval.decided'] },
    });
    expect(created.headers.get('location')).toBe(`/v1/connectors/${created.body.connectorId}`);
    const read = await reader('GET', `/v1/connectors/${created.body.connectorId}`);
    expect(read.body).toEqual(created.body);
    const listed = await reader('GET', '/v1/connectors?connectorType=webhook');
    expect(listed.body.data.map((c: { name: string }) => c.name)).toContain('Finance alerts');
  });

  it('names the organization by its DID too, fills the type’s defaults, and answers a retry with the first', async () => {
    const body = {
      orgId: DEFAULT_ORGANIZATION_DID,
      connectorName: 'Warehouse',
      connectorType: 'database',
      configuration: { engine: 'postgres', host: 'db.acme.internal', port: 5432, database: 'dw' },
    };
    const first = await admin('POST', '/v1/connectors', { json: body, headers: { 'Idempotency-Key': 'dw-1' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ configuration: { read_only: true }, capabilities: ['records:read'] });
    const again = await admin('POST', '/v1/connectors', { json: body, headers: { 'Idempotency-Key': 'dw-1' } });
    expect(again.status).toBe(201);
    expect(again.body.connectorId).toBe(first.body.connectorId);
    expectProblem(await admin('POST', '/v1/connectors', { json: body }), 409, 'organization_connector_exists');
  });

  it('refuses a configuration that does not fit its type, naming each field, and a credential in it', async () => {
    const wrong = await admin('POST', '/v1/connectors', {
      json: { ...webhook('Bad'), configuration: { url: 'http://hooks.acme.example', events: [] } },
    });
    expectProblem(wrong, 400, 'validation_failed');
    const fields = wrong.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['configuration.events', 'configuration.url']);
    const secret = await admin('POST', '/v1/connectors', {
      json: {
        ...webhook('Secret'),
        configuration: { url: 'https://h.example', events: ['x'], password: 'hunter2' },
      },
    });
    expectProblem(secret, 400, 'validation_failed');
    expect(secret.body.errors[0]).toMatchObject({ code: 'FIELD_NOT_ALLOWED' });
    expect(JSON.stringify(secret.body)).not.toContain('hunter2');
    const missing = await admin('POST', '/v1/connectors', { json: { connectorName: 'x', connectorType: 'email' } });
    expectProblem(missing, 400, 'validation_failed');
    expectProblem(
      await admin('POST', '/v1/connectors', { json: { ...webhook('Type'), connectorType: 'ftp' } }),
      400,
      'validation_failed',
    );
  });

  it('backs a marketplace connector by an active installation, and shows it inactive while that is suspended', async () => {
    const created = await admin('POST', '/v1/connectors', {
      json: {
        orgId: 'org_default',
        connectorName: 'CRM sync',
        connectorType: 'marketplace',
        configuration: { installation_id: installationId },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'active', capabilities: ['records:sync'], installationId });
    await admin('PATCH', `/v1/marketplace/installations/${installationId}`, { json: { status: 'suspended' } });
    const read = await reader('GET', `/v1/connectors/${created.body.connectorId}`);
    expect(read.body.status).toBe('inactive');
    const inactive = await reader('GET', '/v1/connectors?status=inactive');
    expect(inactive.body.data.map((c: { connectorId: string }) => c.connectorId)).toEqual([created.body.connectorId]);
    expectProblem(
      await admin('POST', '/v1/connectors', {
        json: {
          orgId: 'org_default',
          connectorName: 'CRM again',
          connectorType: 'marketplace',
          configuration: { installation_id: installationId },
        },
      }),
      422,
      'installation_not_usable',
    );
    await admin('PATCH', `/v1/marketplace/installations/${installationId}`, { json: { status: 'active' } });
    expect((await reader('GET', `/v1/connectors/${created.body.connectorId}`)).body.status).toBe('active');
  });

  it('keeps each organization’s connectors to itself, and creation to its administrators', async () => {
    const mine = await admin('POST', '/v1/connectors', { json: webhook('Private hook') });
    const operator = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
    const other = await operator('POST', '/v1/organizations', {
      json: { org_did: 'did:web:elsewhere.example', name: 'Elsewhere' },
    });
    const stranger = client(
      stack.baseUrl,
      await stack.token(['platform:admin'], 'stranger', other.body.organization_id),
    );
    expectProblem(
      await stranger('GET', `/v1/connectors/${mine.body.connectorId}`),
      404,
      'organization_connector_not_found',
    );
    const theirs = await stranger('GET', '/v1/connectors');
    expect(theirs.body.data).toEqual([]);
    expectProblem(await stranger('POST', '/v1/connectors', { json: webhook('Into A') }), 404, 'organization_not_found');
    const own = await stranger('POST', '/v1/connectors', {
      json: { ...webhook('Theirs'), orgId: other.body.organization_id },
    });
    expect(own.status).toBe(201);
    expect(own.body.orgId).toBe(other.body.organization_id);
    expectProblem(await reader('POST', '/v1/connectors', { json: webhook('Not allowed') }), 403, 'insufficient_scope');
    expectProblem(await client(stack.baseUrl)('GET', '/v1/connectors'), 401, 'unauthorized');
  });
});
