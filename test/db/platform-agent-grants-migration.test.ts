import { migrateToLatest, migrationSource } from '../../db/migrate';
import { MIGRATIONS } from '../../migrations';
import { createTestDatabase, type TestDatabase } from '../support/database';

const MIGRATION = '20261201007100_platform_agent_grants_by_did';

/** A database migrated up to, not including, the migration under test. */
async function migratedBefore(name: string): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  const before = MIGRATIONS.findIndex((entry) => entry.name === name);
  for (let i = 0; i < before; i += 1) await database.db.migrate.up({ migrationSource });
  return database;
}

const agentRow = (agent_id: string, passport_id: string, capabilities: string[]) => ({
  agent_id,
  agent_uri: `agent://default/${agent_id}@1.0.0`,
  org: 'default',
  name: agent_id,
  version: '1.0.0',
  passport_id,
  capabilities,
  endpoint_url: 'https://agents.example/run',
  status: 'active',
  approval_policy: JSON.stringify({ require_approval_at: 'never' }),
  timeout_seconds: 30,
  max_attempts: 3,
  created_by: 'migration-test',
  organization_id: 'org_default',
});

describe('platform agents’ grants keyed by DID (migration 20261201007100)', () => {
  let database: TestDatabase;
  afterEach(() => database?.destroy());

  it('rewrites a Passport id to its DID and grants every agent what its registrations offer', async () => {
    database = await migratedBefore(MIGRATION);
    const { db } = database;
    const now = new Date();
    await db('passports').insert({
      passport_id: 'pp_legacy',
      did: 'did:web:agents.example:legacy',
      type: 'agent',
      name: 'Legacy',
      organization_id: 'org_default',
      metadata: JSON.stringify({}),
      capabilities: [],
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    await db('platform_agents').insert([
      agentRow('legacy', 'pp_legacy', ['capability://default/legacy_m']),
      // Registered through the API before the fix: a DID, which the old trigger granted nothing.
      agentRow('api', 'did:web:handoff.local:agents:default:api', ['capability://default/api_m']),
    ]);
    const live = () =>
      db('capability_grants')
        .whereNull('revoked_at')
        .where({ subject_type: 'agent' })
        .orderBy('capability_name')
        .select('subject_did', 'capability_name', 'weight', 'source');
    // The old trigger granted the Passport-id row through its Passport, and the DID row nothing.
    expect((await live()).map((g) => g.capability_name)).toEqual(['legacy_m']);

    await migrateToLatest(db);

    expect(await db('platform_agents').orderBy('agent_id').pluck('passport_id')).toEqual([
      'did:web:handoff.local:agents:default:api',
      'did:web:agents.example:legacy',
    ]);
    expect(await live()).toEqual([
      {
        subject_did: 'did:web:handoff.local:agents:default:api',
        capability_name: 'api_m',
        weight: 1,
        source: 'migration',
      },
      { subject_did: 'did:web:agents.example:legacy', capability_name: 'legacy_m', weight: 1, source: 'migration' },
    ]);
    // Two versions share a DID: the second registration adds to what the first offered, revoking nothing.
    await db('platform_agents').insert(
      agentRow('api2', 'did:web:handoff.local:agents:default:api', ['capability://default/api_two_m']),
    );
    expect((await live()).map((g) => g.capability_name)).toEqual(['api_m', 'api_two_m', 'legacy_m']);
  });
});
