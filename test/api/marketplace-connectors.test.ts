import { client, expectProblem } from '../support/http';
import { plainConnector } from '../support/connectors';
import { useStack } from '../support/stack';

const stack = useStack();
let admin: ReturnType<typeof client>;
let member: ReturnType<typeof client>;
const anonymous = () => client(stack.baseUrl);

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
  member = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write'], 'member'));
  const entries: Array<[string, Record<string, unknown>]> = [
    ['slack-lite', plainConnector('Slack Lite', { provider: 'Slack', description: 'Send messages to channels' })],
    [
      'mailer',
      plainConnector('Mailer', {
        provider: 'Postmark',
        description: 'Send transactional messages by mail',
        pricing_model: 'paid',
      }),
    ],
    ['drive', plainConnector('Drive', { provider: 'Google', description: 'Read files', capabilities: ['files:read'] })],
    ['sheets', plainConnector('Sheets', { provider: 'Google', description: 'Edit spreadsheets', certified: true })],
  ];
  for (const [id, body] of entries)
    expect((await admin('PUT', `/v1/marketplace/connectors/${id}`, { json: body })).status).toBe(200);
});

describe('connector catalog', () => {
  it('ranks full-text matches, name first, for anyone', async () => {
    const reply = await anonymous()('GET', '/v1/marketplace/connectors?query=slack%20messages');
    expect(reply.status).toBe(200);
    expect(reply.body.data.map((c: { connector_id: string }) => c.connector_id)).toEqual(['slack-lite']);
    const messages = await anonymous()('GET', '/v1/marketplace/connectors?query=messages');
    expect(messages.body.data.map((c: { connector_id: string }) => c.connector_id).sort()).toEqual([
      'mailer',
      'slack-lite',
    ]);
    expect(messages.body.data[0]).toMatchObject({
      install_count: 0,
      rating_count: 0,
      rating_average: null,
      oauth: null,
    });
    expect(messages.body.data[0]).not.toHaveProperty('oauth_client');
  });

  it('filters by provider, certification, pricing and capability, and pages with a cursor', async () => {
    const google = await anonymous()('GET', '/v1/marketplace/connectors?provider=google&limit=1');
    expect(google.body).toMatchObject({ has_more: true, total_count: 2 });
    const next = await anonymous()(
      'GET',
      `/v1/marketplace/connectors?provider=google&limit=1&cursor=${google.body.next_cursor}`,
    );
    const ids = [...google.body.data, ...next.body.data].map((c: { connector_id: string }) => c.connector_id);
    expect(ids.sort()).toEqual(['drive', 'sheets']);
    expect(next.body.has_more).toBe(false);
    const certified = await anonymous()('GET', '/v1/marketplace/connectors?certified=true');
    expect(certified.body.data.map((c: { connector_id: string }) => c.connector_id)).toEqual(['sheets']);
    const paid = await anonymous()('GET', '/v1/marketplace/connectors?pricing_model=paid');
    expect(paid.body.data.map((c: { connector_id: string }) => c.connector_id)).toEqual(['mailer']);
    const files = await anonymous()('GET', '/v1/marketplace/connectors?capability=files:read');
    expect(files.body.data.map((c: { connector_id: string }) => c.connector_id)).toEqual(['drive']);
    expectProblem(await anonymous()('GET', '/v1/marketplace/connectors?cursor=nonsense'), 400, 'invalid_cursor');
  });

  it('shows a connector’s detail with its publisher, schema and statistics; an unknown one is 404', async () => {
    const reply = await anonymous()('GET', '/v1/marketplace/connectors/mailer');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      connector_id: 'mailer',
      publisher: { publisher_id: 'pub_acme', name: 'Acme Inc.', verified: true },
      configuration_schema: { required: ['workspace'] },
      statistics: { install_count: 0, rating_count: 0, invocation_count_30d: 0 },
      last_health_check_at: null,
    });
    expectProblem(await anonymous()('GET', '/v1/marketplace/connectors/nothing'), 404, 'connector_not_found');
  });

  it('is registered only by the deployment’s administrators, with a schema that compiles', async () => {
    expectProblem(
      await member('PUT', '/v1/marketplace/connectors/x', { json: plainConnector('X') }),
      403,
      'insufficient_scope',
    );
    const broken = plainConnector('Broken', { configuration_schema: { type: 'nonsense' } });
    expectProblem(await admin('PUT', '/v1/marketplace/connectors/broken', { json: broken }), 400, 'invalid_connector');
    const oauthless = plainConnector('No client', { oauth: { required: true, scopes: ['a'] } });
    expectProblem(
      await admin('PUT', '/v1/marketplace/connectors/noclient', { json: oauthless }),
      400,
      'invalid_connector',
    );
  });
});

describe('installing a connector without OAuth', () => {
  it('is active at once, keeps its id when installed again, and counts in the catalog', async () => {
    const first = await member('POST', '/v1/marketplace/connectors/mailer/install', {
      json: { deployment_mode: 'cloud', config: { workspace: 'ops' }, granted_permissions: [] },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: 'active',
      oauth_state: null,
      authorization_url: null,
      expires_at: null,
    });
    const again = await member('POST', '/v1/marketplace/connectors/mailer/install', {
      json: { deployment_mode: 'self-hosted', config: { workspace: 'ops', region: 'eu' }, granted_permissions: [] },
    });
    expect(again.status).toBe(200);
    expect(again.body.installation_id).toBe(first.body.installation_id);
    const read = await member('GET', `/v1/marketplace/installations/${first.body.installation_id}`);
    expect(read.body).toMatchObject({
      connector: { connector_id: 'mailer', name: 'Mailer', provider: 'Postmark' },
      status: 'active',
      deployment_mode: 'self-hosted',
      config: { workspace: 'ops', region: 'eu' },
      installed_by: 'member',
      invocation_count_30d: 0,
    });
    expect((await anonymous()('GET', '/v1/marketplace/connectors/mailer')).body.statistics.install_count).toBe(1);
  });

  it('checks the config against the connector’s schema, the mode and the permissions', async () => {
    const badConfig = await member('POST', '/v1/marketplace/connectors/drive/install', {
      json: { deployment_mode: 'cloud', config: { region: 'mars' }, granted_permissions: [] },
    });
    expectProblem(badConfig, 400, 'invalid_configuration');
    expect(badConfig.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['config', 'config.region']);
    const mode = await member('POST', '/v1/marketplace/connectors/drive/install', {
      json: { deployment_mode: 'hybrid', config: { workspace: 'w' }, granted_permissions: [] },
    });
    expectProblem(mode, 400, 'deployment_mode_not_offered');
    const permissions = await member('POST', '/v1/marketplace/connectors/drive/install', {
      json: { deployment_mode: 'cloud', config: { workspace: 'w' }, granted_permissions: ['files:write'] },
    });
    expectProblem(permissions, 400, 'permissions_not_offered');
    expect(
      (await member('GET', '/v1/marketplace/installations')).body.data.map(
        (i: { connector: { connector_id: string } }) => i.connector.connector_id,
      ),
    ).toEqual(['mailer']);
  });

  it('is suspended, resumed, reconfigured and uninstalled by its organization only', async () => {
    const installed = await member('POST', '/v1/marketplace/connectors/sheets/install', {
      json: { deployment_mode: 'cloud', config: { workspace: 'fin' }, granted_permissions: [] },
    });
    const id = installed.body.installation_id as string;
    const suspended = await member('PATCH', `/v1/marketplace/installations/${id}`, { json: { status: 'suspended' } });
    expect(suspended.body).toMatchObject({ installation_id: id, status: 'suspended' });
    const bad = await member('PATCH', `/v1/marketplace/installations/${id}`, { json: { config: { nope: 1 } } });
    expectProblem(bad, 400, 'invalid_configuration');
    const organization = await admin('POST', '/v1/organizations', {
      json: { org_did: 'did:web:other.example', name: 'Other' },
    });
    const stranger = client(
      stack.baseUrl,
      await stack.token(['platform:read', 'platform:write'], 'stranger', organization.body.organization_id),
    );
    expectProblem(await stranger('GET', `/v1/marketplace/installations/${id}`), 404, 'installation_not_found');
    expectProblem(
      await stranger('PATCH', `/v1/marketplace/installations/${id}`, { json: { status: 'active' } }),
      404,
      'installation_not_found',
    );
    expectProblem(await stranger('DELETE', '/v1/marketplace/connectors/sheets/install'), 404, 'installation_not_found');
    const removed = await member('DELETE', '/v1/marketplace/connectors/sheets/install');
    expect(removed.body).toMatchObject({
      connector_id: 'sheets',
      status: 'uninstalled',
      uninstalled_at: expect.any(String),
    });
    const listed = await member('GET', '/v1/marketplace/installations?status=uninstalled');
    expect(listed.body.data.map((i: { installation_id: string }) => i.installation_id)).toEqual([id]);
    expectProblem(
      await member('PATCH', `/v1/marketplace/installations/${id}`, { json: { status: 'active' } }),
      404,
      'installation_not_found',
    );
  });
});
