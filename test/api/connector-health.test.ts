import { client } from '../support/http';
import { installationParties, installPlain } from '../support/connectors';
import { useStack } from '../support/stack';

jest.setTimeout(120_000);

const stack = useStack();
let member: ReturnType<typeof client>;
let outsider: ReturnType<typeof client>;
let third: ReturnType<typeof client>;
const anonymous = () => client(stack.baseUrl);
const installation = (as: ReturnType<typeof client>, id: string) =>
  as('GET', `/v1/marketplace/installations/${id}`).then((reply) => reply.body);
const detail = (connector: string) =>
  anonymous()('GET', `/v1/marketplace/connectors/${connector}`).then((reply) => reply.body);

/** Records calls of an installation as a connector's caller does, one outcome each. */
async function record(as: ReturnType<typeof client>, installationId: string, outcomes: Array<'success' | 'error'>) {
  for (const outcome of outcomes) {
    const reply = await as('POST', `/v1/marketplace/installations/${installationId}/invocations`, {
      json: { operation: 'records.sync', outcome, duration_ms: 10 },
    });
    expect(reply.status).toBe(201);
  }
}

beforeAll(async () => {
  ({ member, outsider } = await installationParties(stack, 'health', ['quiet', 'steady', 'flaky']));
  const operator = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
  const created = await operator('POST', '/v1/organizations', {
    json: { org_did: 'did:web:health-third.example', name: 'Third' },
  });
  third = client(
    stack.baseUrl,
    await stack.token(['platform:read', 'platform:write'], 'health-third', created.body.organization_id as string),
  );
});

describe('connector and installation health', () => {
  it('is unknown, with no last check, while nothing was called: never healthy by default', async () => {
    const quiet = (await installPlain(member, 'quiet')).body.installation_id as string;
    expect(await detail('quiet')).toMatchObject({ health_status: 'unknown', last_health_check_at: null });
    expect((await installation(member, quiet)).health_status).toBe('unknown');
    const listed = await anonymous()('GET', '/v1/marketplace/connectors?provider=Acme&limit=100');
    const item = listed.body.data.find((c: { connector_id: string }) => c.connector_id === 'quiet');
    expect(item.health_status).toBe('unknown');
  });

  it('is healthy from successful calls, and its last check is the last recorded call', async () => {
    const steady = (await installPlain(member, 'steady')).body.installation_id as string;
    await record(member, steady, ['success', 'success', 'error']);
    const read = await installation(member, steady);
    expect(read.health_status).toBe('healthy');
    expect(await detail('steady')).toMatchObject({
      health_status: 'healthy',
      last_health_check_at: read.last_invocation_at,
    });
  });

  it('is degraded where half the calls fail; one organization of three cannot degrade the connector alone', async () => {
    const ours = (await installPlain(member, 'flaky')).body.installation_id as string;
    await record(member, ours, ['error', 'success']);
    expect((await installation(member, ours)).health_status).toBe('degraded');
    expect((await detail('flaky')).health_status).toBe('degraded');

    const theirs = (await installPlain(outsider, 'flaky')).body.installation_id as string;
    const another = (await installPlain(third, 'flaky')).body.installation_id as string;
    await record(outsider, theirs, ['success', 'success']);
    await record(third, another, ['success']);
    // Each organization reads its own installation's health, from its own calls only.
    expect((await installation(outsider, theirs)).health_status).toBe('healthy');
    expect((await installation(member, ours)).health_status).toBe('degraded');
    expect((await detail('flaky')).health_status).toBe('healthy');

    await record(third, another, ['error', 'error']);
    expect((await detail('flaky')).health_status).toBe('degraded');
  });

  it('reads only the last day: calls older than that leave the status unknown, and the last check stays', async () => {
    const steady = (await installPlain(member, 'steady')).body.installation_id as string;
    const dayAndHourAgo = new Date(Date.now() - 25 * 3_600_000);
    await stack.database
      .db('connector_invocations')
      .where({ installation_id: steady })
      .update({ invoked_at: dayAndHourAgo });
    expect(await detail('steady')).toMatchObject({
      health_status: 'unknown',
      last_health_check_at: dayAndHourAgo.toISOString(),
    });
    expect((await installation(member, steady)).health_status).toBe('unknown');
  });

  it('is disconnected while the installation needs the person’s consent again', async () => {
    const steady = (await installPlain(member, 'steady')).body.installation_id as string;
    await stack.database
      .db('connector_installations')
      .where({ installation_id: steady })
      .update({ status: 'needs_reauth', status_reason: 'invalid_grant' });
    expect((await installation(member, steady)).health_status).toBe('disconnected');
    const listed = await member('GET', '/v1/marketplace/installations?status=needs_reauth');
    expect(listed.body.data.map((i: { health_status: string }) => i.health_status)).toEqual(['disconnected']);
  });
});
