import { MockActivityEnvironment } from '@temporalio/testing';
import { createLedgerActivities } from '../../activities/ledger';
import { loadConfig } from '../../app/config';
import { workerSettings } from '../../app/deps';
import type { LedgerSealerSettings } from '../../contracts/seal-ledger';
import { appendProvenanceBatch } from '../../db/ledger';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { createLogger } from '../../lib/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';

const SETTINGS: LedgerSealerSettings = {
  max_block_leaves: 1000,
  max_block_age_ms: 2000,
  poll_interval_ms: 100,
  idle_return_ms: 1900,
  close_lock_timeout_ms: 500,
  seal_timeout_ms: 60_000,
  cycles_before_continue_as_new: 500,
};

const entry = (step: string) => ({
  entry: {
    subject_id: 'await-due-block',
    step_id: step,
    timestamp: new Date().toISOString(),
    actor: { type: 'orch_core' },
    action: 'test',
    input_data: {},
    output_data: {},
    reasoning: 'sealer activity test',
  } satisfies ProvenanceEntry,
});

let database: TestDatabase;

beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.destroy());

/** The sealer's waiting activity on the test database. */
function awaitDueBlock(settings: LedgerSealerSettings) {
  const activities = createLedgerActivities({
    db: database.db,
    settings: workerSettings(loadConfig({})),
    logger: createLogger({ level: 'error', silent: true }),
  });
  return activities.awaitDueBlock(settings);
}

/** Counts the queries made on the test database while it is in place. */
function countQueries() {
  const counter = { queries: 0, stop: () => void database.db.removeListener('query', count) };
  const count = () => (counter.queries += 1);
  database.db.on('query', count);
  return counter;
}

describe('awaitDueBlock', () => {
  it('looks at an empty ledger every quarter of the age limit, not every poll interval, and heartbeats every 2 s', async () => {
    const activityEnv = new MockActivityEnvironment();
    let heartbeats = 0;
    activityEnv.on('heartbeat', () => (heartbeats += 1));
    const counter = countQueries();
    const due = await activityEnv.run(awaitDueBlock, SETTINGS).finally(counter.stop);
    expect(due).toEqual({ kind: 'idle' });
    // 1.9 s at a look every 500 ms; one every 100 ms would make about 19.
    expect(counter.queries).toBeLessThanOrEqual(5);
    expect(heartbeats).toBe(1);
  });

  it('closes a block whose first record came while it looked rarely when that record reaches the age limit', async () => {
    const activityEnv = new MockActivityEnvironment();
    const counter = countQueries();
    const waiting = activityEnv.run(awaitDueBlock, { ...SETTINGS, idle_return_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 700));
    counter.stop();
    // Looks at 0 and 500 ms; one every 100 ms would make 7.
    expect(counter.queries).toBeLessThanOrEqual(2);
    await appendProvenanceBatch(database.db, [entry('first')]);
    const appendedAt = Date.now();
    expect(await waiting).toEqual({ kind: 'close', block_number: 1 });
    const tookMs = Date.now() - appendedAt;
    expect(tookMs).toBeGreaterThanOrEqual(SETTINGS.max_block_age_ms - 200);
    expect(tookMs).toBeLessThan(SETTINGS.max_block_age_ms + 1000);
  });
});
