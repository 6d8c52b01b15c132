import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { itemsWaitingOnHumans, outboxBacklog } from '../../db/operations';
import { ledgerSealingLag } from '../../db/ledger-blocks';
import { gaugeAtScrape } from '../../lib/metrics';
import type { RevocationRegistry } from '../identity/delegations/revocations';

/**
 * Gauges read at scrape time: from Postgres (the same values on every instance; alert on max()) and from this
 * instance's revocation registry. Only the API registers them; a worker alone has no revocation registry.
 */
export function registerOperationalGauges(
  registry: Registry,
  deps: { db: Knex; revocations?: RevocationRegistry | undefined },
): void {
  registerWaitingOnHumansGauges(registry, deps.db);
  registerOutboxGauges(registry, deps.db);
  gaugeAtScrape(
    registry,
    {
      name: 'handoff_ledger_seal_lag_seconds',
      help: 'Age of the oldest provenance record not yet sealed into a signed checkpoint; 0 when all are sealed',
    },
    async () => [{ value: (await ledgerSealingLag(deps.db)).oldest_unsealed_age_seconds ?? 0 }],
  );
  if (deps.revocations) registerRevocationGauge(registry, deps.revocations);
}

function registerWaitingOnHumansGauges(registry: Registry, db: Knex): void {
  // One query serves both gauges of a scrape.
  const waiting = sharedWhileInFlight(() => itemsWaitingOnHumans(db));
  gaugeAtScrape(
    registry,
    {
      name: 'handoff_items_waiting_on_humans',
      help: 'Approvals pending an answer and routings waiting for a reviewer, by kind',
      labelNames: ['kind'],
    },
    async () => Object.entries(await waiting()).map(([kind, { count }]) => ({ labels: { kind }, value: count })),
  );
  gaugeAtScrape(
    registry,
    {
      name: 'handoff_oldest_wait_on_humans_seconds',
      help: 'Seconds the oldest item waiting on a human has waited, by kind',
      labelNames: ['kind'],
    },
    async () =>
      Object.entries(await waiting()).map(([kind, { oldest_seconds }]) => ({
        labels: { kind },
        value: oldest_seconds,
      })),
  );
}

function registerOutboxGauges(registry: Registry, db: Knex): void {
  const backlog = sharedWhileInFlight(() => outboxBacklog(db));
  gaugeAtScrape(
    registry,
    { name: 'handoff_outbox_backlog_events', help: 'Outbox events not yet dispatched to webhook deliveries' },
    async () => [{ value: (await backlog()).count }],
  );
  gaugeAtScrape(
    registry,
    {
      name: 'handoff_outbox_oldest_event_age_seconds',
      help: 'Seconds the oldest undispatched outbox event has waited',
    },
    async () => [{ value: (await backlog()).oldest_seconds }],
  );
}

function registerRevocationGauge(registry: Registry, revocations: RevocationRegistry): void {
  gaugeAtScrape(
    registry,
    {
      name: 'handoff_revocations',
      help: "Unexpired revocations in this instance's in-memory registry, by what is revoked",
      labelNames: ['kind'],
    },
    () => {
      const status = revocations.status();
      return [
        { labels: { kind: 'token' }, value: status.tokens },
        { labels: { kind: 'delegation' }, value: status.delegations },
      ];
    },
  );
}

/** Gauges are collected concurrently in one scrape: callers while a read is in flight share it; the next scrape reads again. */
function sharedWhileInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => {
    inFlight ??= read().finally(() => (inFlight = undefined));
    return inFlight;
  };
}
