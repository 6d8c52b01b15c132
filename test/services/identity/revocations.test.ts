import { randomUUID } from 'node:crypto';
import { createDb } from '../../../db/connection';
import { createLogger } from '../../../lib/logger';
import {
  createRevocationRegistry,
  DEFAULT_REVOCATION_SETTINGS,
  type RevocationRegistry,
} from '../../../services/identity/delegations/revocations';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { eventually } from '../../support/eventually';

let database: TestDatabase;
const registries: RevocationRegistry[] = [];
const logger = createLogger({ level: 'error', silent: true });

beforeAll(async () => {
  database = await createTestDatabase();
  const now = new Date();
  await database.db('passports').insert({
    passport_id: 'pp_rev',
    did: 'did:web:localhost:passports:pp_rev',
    type: 'individual',
    name: 'Rev',
    organization_id: 'org_default',
    metadata: JSON.stringify({}),
    capabilities: [],
    status: 'active',
    created_at: now,
    updated_at: now,
  });
});
afterAll(async () => {
  await Promise.all(registries.map((registry) => registry.close()));
  await database.destroy();
});

function registry(
  options: { listen?: boolean; settings?: Partial<typeof DEFAULT_REVOCATION_SETTINGS>; db?: TestDatabase['db'] } = {},
): RevocationRegistry {
  const created = createRevocationRegistry({
    db: options.db ?? database.db,
    listenUrl: options.listen === false || database.embedded ? undefined : database.url,
    logger,
    settings: { ...DEFAULT_REVOCATION_SETTINGS, ...options.settings },
  });
  registries.push(created);
  return created;
}

async function delegation(): Promise<string> {
  const delegation_id = `dlg_${randomUUID()}`;
  const now = new Date();
  await database.db('delegations').insert({
    delegation_id,
    organization_id: 'org_default',
    passport_id: 'pp_rev',
    did: 'did:web:localhost:passports:pp_rev',
    chain: [delegation_id],
    capabilities: [],
    risk_level: 'standard',
    verification_tier: 1,
    identity_tier: 0,
    credential_type: 'device_key',
    credential_id: 'k',
    created_at: now,
    expires_at: new Date(now.getTime() + 3600_000),
  });
  return delegation_id;
}

/** A revocation written by another instance: the row and its notification, committed together. */
async function revokeElsewhere(delegation_id: string, token_id: string | null, expiresInMs = 3600_000): Promise<void> {
  await database.db.transaction(async (trx) => {
    await trx('delegation_revocations').insert({
      id: `rev_${randomUUID()}`,
      organization_id: 'org_default',
      delegation_id,
      token_id,
      revoked_by: 'did:web:x',
      revoked_at: new Date(),
      reason: null,
      metadata: JSON.stringify({}),
      expires_at: new Date(Date.now() + expiresInMs),
    });
    await trx.raw('select pg_notify(?, ?)', [
      'delegation_revocations',
      JSON.stringify({ d: delegation_id, t: token_id }),
    ]);
  });
}

describe('the revocation registry', () => {
  it('loads what was revoked before it started, and skips revocations of tokens that have expired anyway', async () => {
    const [live, expired] = [await delegation(), await delegation()];
    await revokeElsewhere(live, null);
    await revokeElsewhere(expired, null, -1000);
    const fresh = registry();
    expect(await fresh.check('dtk_any', [live])).toEqual({ state: 'revoked', which: 'delegation' });
    expect(await fresh.check('dtk_any', [expired])).toEqual({ state: 'valid' });
  });

  it('refuses a token revoked on another instance within a second, by notification', async () => {
    if (database.embedded) return;
    // A safety-net poll far beyond the bound: only the notification can meet it.
    const listening = registry({ settings: { pollWhileListeningMs: 60_000 } });
    const family = await delegation();
    expect(await listening.check('dtk_1', [family])).toEqual({ state: 'valid' });
    await eventually(async () => listening.status().listening, Boolean, { timeoutMs: 5000, everyMs: 20 });
    const revokedAt = Date.now();
    await revokeElsewhere(family, 'dtk_1');
    await eventually(
      () => listening.check('dtk_1', [family]),
      (result) => result.state === 'revoked',
      { timeoutMs: 1000, everyMs: 5 },
    );
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(await listening.check('dtk_2', [family])).toEqual({ state: 'valid' });
  });

  it('without LISTEN, or when its connection dies, still refuses within the bound by catching up', async () => {
    const polling = registry({ listen: false, settings: { pollWithoutListenMs: 60_000 } });
    const family = await delegation();
    expect(await polling.check('dtk_p', [family])).toEqual({ state: 'valid' });
    await revokeElsewhere(family, null);
    const revokedAt = Date.now();
    // The poll is a minute away: the check itself catches up once its set is older than maxStalenessMs.
    await eventually(
      () => polling.check('dtk_p', [family]),
      (result) => result.state === 'revoked',
      { timeoutMs: 2000, everyMs: 50 },
    );
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(DEFAULT_REVOCATION_SETTINGS.maxStalenessMs + 200);

    if (database.embedded) return;
    const listening = registry({ settings: { pollWhileListeningMs: 60_000, pollWithoutListenMs: 60_000 } });
    const other = await delegation();
    await listening.check('dtk_l', [other]);
    await eventually(async () => listening.status().listening, Boolean, { timeoutMs: 5000, everyMs: 20 });
    await database.db.raw(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'handoff-revocations' and datname = current_database()",
    );
    await eventually(
      async () => listening.status().listening,
      (up) => !up,
      { timeoutMs: 2000, everyMs: 10 },
    );
    await revokeElsewhere(other, null);
    const lostAt = Date.now();
    await eventually(
      () => listening.check('dtk_l', [other]),
      (result) => result.state === 'revoked',
      { timeoutMs: 2000, everyMs: 50 },
    );
    expect(Date.now() - lostAt).toBeLessThanOrEqual(DEFAULT_REVOCATION_SETTINGS.maxStalenessMs + 200);
  });

  it('without LISTEN, loads a revocation whose transaction stayed open for seconds after it wrote the row, once it commits', async () => {
    const polling = registry({ listen: false, settings: { pollWithoutListenMs: 100 } });
    const family = await delegation();
    expect(await polling.check('dtk_slow', [family])).toEqual({ state: 'valid' });
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    // The row is written at once, then its transaction waits (as behind a lock) while the registry catches up many times.
    const slow = database.db.transaction(async (trx) => {
      await trx('delegation_revocations').insert({
        id: `rev_${randomUUID()}`,
        organization_id: 'org_default',
        delegation_id: family,
        token_id: null,
        revoked_by: 'did:web:x',
        revoked_at: new Date(),
        reason: null,
        metadata: JSON.stringify({}),
        expires_at: new Date(Date.now() + 3600_000),
      });
      await committing;
    });
    const openFor = 3000;
    const openUntil = Date.now() + openFor;
    while (Date.now() < openUntil) {
      expect(await polling.check('dtk_slow', [family])).toEqual({ state: 'valid' });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    commit();
    await slow;
    const committedAt = Date.now();
    await eventually(
      () => polling.check('dtk_slow', [family]),
      (result) => result.state === 'revoked',
      { timeoutMs: 3000, everyMs: 50 },
    );
    expect(Date.now() - committedAt).toBeLessThanOrEqual(DEFAULT_REVOCATION_SETTINGS.maxStalenessMs + 200);
  }, 20_000);

  it('answers unknown (the caller refuses) when it cannot confirm, and after it is closed', async () => {
    const unreachable = createDb({ connectionString: 'postgres://nobody@127.0.0.1:1/none', poolMax: 1, logger });
    try {
      const blind = registry({ listen: false, db: unreachable });
      expect(await blind.check('dtk_x', ['dlg_x'])).toEqual({ state: 'unknown' });
    } finally {
      await unreachable.destroy();
    }
    const closing = registry({ listen: false });
    expect(await closing.check('dtk_y', ['dlg_y'])).toEqual({ state: 'valid' });
    await closing.close();
    expect(await closing.check('dtk_y', ['dlg_y'])).toEqual({ state: 'unknown' });
  });

  it('holds 100,000 revocations and finds the last one loaded', async () => {
    const family = await delegation();
    const rows = Array.from({ length: 100_000 }, (_, index) => ({
      id: `rev_bulk_${index}`,
      organization_id: 'org_default',
      delegation_id: family,
      token_id: `dtk_bulk_${index}`,
      revoked_by: 'did:web:x',
      revoked_at: new Date(),
      reason: null,
      metadata: '{}',
      expires_at: new Date(Date.now() + 3600_000),
    }));
    await database.db.batchInsert('delegation_revocations', rows, 5000);
    const loaded = registry({ listen: false });
    expect(await loaded.check('dtk_bulk_99999', [family])).toEqual({ state: 'revoked', which: 'token' });
    expect(loaded.status().tokens).toBeGreaterThanOrEqual(100_000);
    expect(await loaded.check('dtk_not_revoked', ['dlg_other'])).toEqual({ state: 'valid' });
  }, 60_000);
});
