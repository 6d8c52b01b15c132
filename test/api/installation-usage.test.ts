import { client, expectProblem } from '../support/http';
import { installationParties, installPlain } from '../support/connectors';
import { useStack } from '../support/stack';

jest.setTimeout(120_000);

const stack = useStack();
let member: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;
let outsider: ReturnType<typeof client>;
let installationId: string;
let suspendedId: string;
const invocations = (id: string) => `/v1/marketplace/installations/${id}/invocations`;
const usage = (id: string) => `/v1/marketplace/installations/${id}/usage`;
const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  ({ member, reader, outsider } = await installationParties(stack, 'usage', ['used', 'paused']));
  installationId = (await installPlain(member, 'used')).body.installation_id;
  suspendedId = (await installPlain(member, 'paused')).body.installation_id;
  const suspended = await member('PATCH', `/v1/marketplace/installations/${suspendedId}`, {
    json: { status: 'suspended' },
  });
  expect(suspended.status).toBe(200);
});

describe('recording invocations', () => {
  it('records invocations of an active installation, once per Idempotency-Key', async () => {
    const first = await member('POST', invocations(installationId), {
      json: { operation: 'records.sync', outcome: 'success', duration_ms: 100, cost_usd: 0.25 },
      headers: { 'Idempotency-Key': 'usage-first' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      installation_id: installationId,
      connector_id: 'used',
      operation: 'records.sync',
      outcome: 'success',
      duration_ms: 100,
      error_code: null,
      cost_usd: 0.25,
    });
    const replay = await member('POST', invocations(installationId), {
      json: { operation: 'records.sync', outcome: 'success', duration_ms: 100, cost_usd: 0.25 },
      headers: { 'Idempotency-Key': 'usage-first' },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.invocation_id).toBe(first.body.invocation_id);
    const failed = await member('POST', invocations(installationId), {
      json: { operation: 'records.sync', outcome: 'error', duration_ms: 300, error_code: 'rate_limited' },
    });
    expect(failed.status).toBe(201);
    expect(failed.body).toMatchObject({ outcome: 'error', error_code: 'rate_limited', cost_usd: 0 });
  });

  it('refuses a body that does not fit with 400', async () => {
    for (const json of [
      {},
      { operation: 'x', outcome: 'maybe', duration_ms: 1 },
      { operation: 'x', outcome: 'success', duration_ms: -1 },
      { operation: 'x', outcome: 'success', duration_ms: 1.5 },
      { operation: '', outcome: 'success', duration_ms: 1 },
      { operation: 'x', outcome: 'success', duration_ms: 1, error_code: 'only_with_error' },
      { operation: 'x', outcome: 'success', duration_ms: 1, extra: true },
    ])
      expectProblem(await member('POST', invocations(installationId), { json }), 400, 'validation_failed');
    expectProblem(
      await member('POST', invocations('not-an-id'), { json: { operation: 'x', outcome: 'success', duration_ms: 1 } }),
      400,
      'validation_failed',
    );
  });

  it('refuses a suspended installation with 409 installation_not_active', async () => {
    const reply = await member('POST', invocations(suspendedId), {
      json: { operation: 'x', outcome: 'success', duration_ms: 1 },
    });
    expectProblem(reply, 409, 'installation_not_active');
    expect(reply.body.detail).toContain('suspended');
  });

  it('refuses a read-only caller with 403, and another organization with 404', async () => {
    const body = { json: { operation: 'x', outcome: 'success', duration_ms: 1 } };
    const refused = await reader('POST', invocations(installationId), body);
    expect(refused.status).toBe(403);
    expectProblem(await outsider('POST', invocations(installationId), body), 404, 'installation_not_found');
    expectProblem(await outsider('GET', usage(installationId)), 404, 'installation_not_found');
  });
});

describe('usage statistics', () => {
  it('gives 30 zero-filled UTC days and totals from the recorded rows only', async () => {
    // Real rows recorded earlier: 3 days ago (inside the window) and 40 days ago (outside it).
    const db = stack.database.db;
    const row = { installation_id: installationId, organization_id: 'org_default', connector_id: 'used' };
    await db('connector_invocations').insert([
      { ...row, operation: 'old', succeeded: true, duration_ms: 50, invoked_at: new Date(Date.now() - 3 * 86_400_000) },
      {
        ...row,
        operation: 'older',
        succeeded: false,
        duration_ms: 9,
        invoked_at: new Date(Date.now() - 40 * 86_400_000),
      },
    ]);
    const reply = await reader('GET', usage(installationId));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      installation_id: installationId,
      connector_id: 'used',
      period: '30d',
      statistics: {
        total_invocations: 3,
        successful_invocations: 2,
        failed_invocations: 1,
        average_duration_ms: 150,
        p50_duration_ms: 100,
        total_cost_usd: 0.25,
        last_invocation_at: expect.any(String),
      },
    });
    const days: Array<{ date: string; invocations: number }> = reply.body.daily_breakdown;
    expect(days).toHaveLength(30);
    expect(days[0]!.date).toBe(utcDay(29));
    expect(days[29]!.date).toBe(utcDay(0));
    expect(days[29]).toMatchObject({
      invocations: 2,
      failed_invocations: 1,
      average_duration_ms: 200,
      p50_duration_ms: 200,
      cost_usd: 0.25,
    });
    expect(days.find((day) => day.date === utcDay(3))).toMatchObject({ invocations: 1, average_duration_ms: 50 });
    const quiet = days.filter((day) => day.date !== utcDay(0) && day.date !== utcDay(3));
    expect(quiet).toHaveLength(28);
    for (const day of quiet)
      expect(day).toEqual({
        date: day.date,
        invocations: 0,
        failed_invocations: 0,
        average_duration_ms: null,
        p50_duration_ms: null,
        cost_usd: 0,
      });
  });

  it('an installation without invocations has zeros, and the installation and catalog read the same rows', async () => {
    const quiet = await member('GET', usage(suspendedId));
    expect(quiet.status).toBe(200);
    expect(quiet.body.statistics).toEqual({
      total_invocations: 0,
      successful_invocations: 0,
      failed_invocations: 0,
      average_duration_ms: null,
      p50_duration_ms: null,
      total_cost_usd: 0,
      last_invocation_at: null,
    });
    expect(quiet.body.daily_breakdown.every((day: { invocations: number }) => day.invocations === 0)).toBe(true);
    const usageReply = await member('GET', usage(installationId));
    const installation = await member('GET', `/v1/marketplace/installations/${installationId}`);
    expect(installation.body).toMatchObject({
      invocation_count_30d: 3,
      last_invocation_at: usageReply.body.statistics.last_invocation_at,
    });
    const detail = await client(stack.baseUrl)('GET', '/v1/marketplace/connectors/used');
    expect(detail.body.statistics).toMatchObject({ invocation_count_30d: 3, install_count: 1 });
  });
});
