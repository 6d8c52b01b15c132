import type { Knex } from 'knex';
import type { EndpointDisableReason } from '../domain/webhooks/rules';
import { paginate, type Page, type PageRequest } from './pagination';

export type SubscriptionStatus = 'enabled' | 'disabled';

export interface SubscriptionRow {
  subscription_id: string;
  organization_id: string;
  version: number;
  url: string;
  events: string[];
  description: string | null;
  status: SubscriptionStatus;
  disabled_reason: EndpointDisableReason | 'manual' | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

const SUBSCRIPTION_COLUMNS = [
  'subscription_id',
  'organization_id',
  'version',
  'url',
  'events',
  'description',
  'status',
  'disabled_reason',
  'disabled_at',
  'failing_since',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export interface SecretRow {
  secret_id: string;
  subscription_id: string;
  sealed: string;
  created_at: Date;
  expires_at: Date | null;
}

// Subscriptions ---------------------------------------------------------------------------------------

/**
 * Inserts a new subscription unless its id exists; false when it does. A concurrent insert of the same id
 * waits for the first transaction and then sees its row.
 */
export async function insertSubscriptionIfAbsent(
  db: Knex,
  row: Pick<SubscriptionRow, 'subscription_id' | 'organization_id' | 'url' | 'events' | 'description' | 'created_by'>,
): Promise<boolean> {
  const inserted = await db('webhook_subscriptions')
    .insert({ ...row, version: 1, status: 'enabled' })
    .onConflict('subscription_id')
    .ignore()
    .returning<{ subscription_id: string }[]>(['subscription_id']);
  return inserted.length > 0;
}

/** A subscription that has not been deleted (unless asked); `lock` holds it until the transaction ends. */
/** organizationId: only that organization's subscription (a caller's); absent: any (the delivery workflows'). */
export async function findSubscription(
  db: Knex,
  subscriptionId: string,
  options: { lock?: boolean; includeDeleted?: boolean; organizationId?: string } = {},
): Promise<SubscriptionRow | undefined> {
  const query = db<SubscriptionRow>('webhook_subscriptions')
    .select(...SUBSCRIPTION_COLUMNS)
    .where({ subscription_id: subscriptionId });
  if (options.organizationId !== undefined) query.where({ organization_id: options.organizationId });
  if (!options.includeDeleted) query.whereNull('deleted_at');
  if (options.lock) query.forUpdate();
  return query.first();
}

export async function listSubscriptions(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: SubscriptionStatus | undefined; event?: string | undefined },
): Promise<Page<SubscriptionRow>> {
  const query = db<SubscriptionRow>('webhook_subscriptions')
    .select(...SUBSCRIPTION_COLUMNS)
    .where({ organization_id: organizationId })
    .whereNull('deleted_at');
  if (filter.status) query.where({ status: filter.status });
  if (filter.event) query.whereRaw('events && ?::text[]', [[filter.event, '*']]);
  return paginate<SubscriptionRow>(query, page);
}

/** Applies a change and numbers it: every change raises the version its provenance step is named after. */
export async function updateSubscription(
  db: Knex,
  subscriptionId: string,
  changes: Partial<
    Pick<
      SubscriptionRow,
      'url' | 'events' | 'description' | 'status' | 'disabled_reason' | 'disabled_at' | 'failing_since'
    >
  >,
): Promise<SubscriptionRow> {
  const [updated] = await db('webhook_subscriptions')
    .where({ subscription_id: subscriptionId })
    .update({ ...changes, version: db.raw('version + 1'), updated_at: db.fn.now() })
    .returning<SubscriptionRow[]>([...SUBSCRIPTION_COLUMNS]);
  if (!updated) throw new Error(`webhook subscription ${subscriptionId} vanished inside its transaction`);
  return updated;
}

export async function markSubscriptionDeleted(db: Knex, subscriptionId: string): Promise<number> {
  const [row] = await db('webhook_subscriptions')
    .where({ subscription_id: subscriptionId })
    .update({ deleted_at: db.fn.now(), updated_at: db.fn.now(), version: db.raw('version + 1') })
    .returning<{ version: number }[]>(['version']);
  return row!.version;
}

/** Enabled subscriptions and the kinds they receive, for the dispatcher's fan-out. */
export async function listEnabledSubscriptionEvents(
  db: Knex,
): Promise<Array<Pick<SubscriptionRow, 'subscription_id' | 'events' | 'organization_id'>>> {
  return db('webhook_subscriptions')
    .select('subscription_id', 'events', 'organization_id')
    .where({ status: 'enabled' })
    .whereNull('deleted_at');
}

// Secrets ---------------------------------------------------------------------------------------------

export async function insertSecret(
  db: Knex,
  row: Pick<SecretRow, 'secret_id' | 'subscription_id' | 'sealed'>,
): Promise<SecretRow> {
  const [inserted] = await db('webhook_secrets')
    .insert(row)
    .returning<SecretRow[]>(['secret_id', 'subscription_id', 'sealed', 'created_at', 'expires_at']);
  return inserted!;
}

/** Secrets that still sign: the current one and those inside their rotation overlap, newest first. */
export async function listLiveSecrets(db: Knex, subscriptionId: string): Promise<SecretRow[]> {
  return db<SecretRow>('webhook_secrets')
    .where({ subscription_id: subscriptionId })
    .where((live) => live.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'secret_id', order: 'desc' },
    ]);
}

/** Ends the overlap of every live secret at `expiresInSeconds` from now at the latest; returns that time. */
export async function expireLiveSecrets(db: Knex, subscriptionId: string, expiresInSeconds: number): Promise<Date> {
  const { rows } = await db.raw<{ rows: { at: Date }[] }>(`select now() + make_interval(secs => ?) as at`, [
    expiresInSeconds,
  ]);
  const at = rows[0]!.at;
  await db('webhook_secrets')
    .where({ subscription_id: subscriptionId })
    .where((live) => live.whereNull('expires_at').orWhere('expires_at', '>', at))
    .update({ expires_at: at });
  return at;
}

export async function deleteSecrets(db: Knex, subscriptionId: string): Promise<void> {
  await db('webhook_secrets').where({ subscription_id: subscriptionId }).delete();
}

// Endpoint health -------------------------------------------------------------------------------------

/**
 * A success ends the endpoint's run of failures. It writes (and locks) the row only when there was a
 * run, so that thousands of concurrent deliveries to a healthy endpoint do not queue on its row.
 */
export async function clearEndpointFailures(db: Knex, subscriptionId: string): Promise<void> {
  await db('webhook_subscriptions')
    .where({ subscription_id: subscriptionId })
    .whereNotNull('failing_since')
    .update({ failing_since: null });
}

/**
 * A failure starts the endpoint's run of failures, or continues it. Returns the subscription as it now
 * stands, locked until the transaction ends (so that only one delivery disables it), or undefined once
 * it is deleted.
 */
export async function noteEndpointFailure(
  db: Knex,
  subscriptionId: string,
  at: string,
): Promise<SubscriptionRow | undefined> {
  const [row] = await db('webhook_subscriptions')
    .where({ subscription_id: subscriptionId })
    .whereNull('deleted_at')
    .update({ failing_since: db.raw('coalesce(failing_since, ?::timestamptz)', [at]) })
    .returning<SubscriptionRow[]>([...SUBSCRIPTION_COLUMNS]);
  return row;
}

// Outbox ----------------------------------------------------------------------------------------------

export interface OutboxRow {
  event_id: string;
  organization_id: string;
  event: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * The oldest undispatched events, locked for the caller's transaction; SKIP LOCKED lets a second
 * dispatcher (a retried activity whose first run has not died yet) take other rows instead of waiting.
 */
export async function claimUndispatchedEvents(trx: Knex.Transaction, limit: number): Promise<OutboxRow[]> {
  return trx<OutboxRow>('outbox_events')
    .select('event_id', 'organization_id', 'event', 'data', 'created_at')
    .whereNull('dispatched_at')
    .orderBy([{ column: 'created_at' }, { column: 'event_id' }])
    .limit(limit)
    .forUpdate()
    .skipLocked();
}

export async function markEventsDispatched(trx: Knex.Transaction, eventIds: string[]): Promise<void> {
  await trx('outbox_events').whereIn('event_id', eventIds).update({ dispatched_at: trx.fn.now() });
}
