import type { Knex } from 'knex';
import type { DeliveryStatus, EndpointDisableReason } from '../domain/webhooks/rules';
import type { DeliveryState } from '../contracts/deliver-webhook';
import type { Nullable } from '../lib/nullable';
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

// Deliveries ------------------------------------------------------------------------------------------

type DeliveryDates = 'next_attempt_at' | 'created_at' | 'updated_at' | 'completed_at';

/** A delivery's state as webhook_deliveries holds it: unset fields null, instants as Date. */
export type DeliveryRow = Nullable<Omit<DeliveryState, DeliveryDates>> & {
  [K in DeliveryDates]: undefined extends DeliveryState[K] ? Date | null : Date;
};

const DELIVERY_COLUMNS = [
  'delivery_id',
  'version',
  'subscription_id',
  'event_id',
  'event',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'failure_reason',
  'next_attempt_at',
  'replay_of',
  'created_at',
  'updated_at',
  'completed_at',
] as const satisfies ReadonlyArray<keyof DeliveryRow>;

/** Applies a delivery workflow's state only when it is newer than what is stored. */
export async function upsertDeliveryProjection(db: Knex, state: DeliveryState): Promise<void> {
  const row = {
    delivery_id: state.delivery_id,
    version: state.version,
    subscription_id: state.subscription_id,
    event_id: state.event_id,
    event: state.event,
    status: state.status,
    attempts: state.attempts,
    last_status_code: state.last_status_code ?? null,
    last_error: state.last_error ?? null,
    failure_reason: state.failure_reason ?? null,
    next_attempt_at: state.next_attempt_at ?? null,
    replay_of: state.replay_of ?? null,
    created_at: state.created_at,
    updated_at: state.updated_at,
    completed_at: state.completed_at ?? null,
  } satisfies Record<keyof DeliveryState, unknown>;
  const {
    delivery_id: _key,
    subscription_id: _subscription,
    event_id: _eventId,
    event: _event,
    replay_of: _replay,
    created_at: _created,
    ...changes
  } = row;
  // A delivery belongs to its subscription's organization.
  const organization_id = db('webhook_subscriptions')
    .select('organization_id')
    .where({ subscription_id: state.subscription_id });
  await db('webhook_deliveries')
    .insert({ ...row, organization_id })
    .onConflict('delivery_id')
    .merge(changes)
    .where('webhook_deliveries.version', '<', state.version);
}

export async function findDelivery(
  db: Knex,
  organizationId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db<DeliveryRow>('webhook_deliveries')
    .select(...DELIVERY_COLUMNS)
    .where({ subscription_id: subscriptionId, delivery_id: deliveryId })
    .where('organization_id', organizationId)
    .first();
}

export async function listDeliveries(
  db: Knex,
  subscriptionId: string,
  page: PageRequest,
  filter: {
    status?: DeliveryStatus | undefined;
    event?: string | undefined;
    event_id?: string | undefined;
    created_at__gte?: string | undefined;
    created_at__lte?: string | undefined;
  },
): Promise<Page<DeliveryRow>> {
  const query = db<DeliveryRow>('webhook_deliveries')
    .select(...DELIVERY_COLUMNS)
    .where({ subscription_id: subscriptionId });
  if (filter.status) query.where({ status: filter.status });
  if (filter.event) query.where({ event: filter.event });
  if (filter.event_id) query.where({ event_id: filter.event_id });
  if (filter.created_at__gte) query.where('created_at', '>=', filter.created_at__gte);
  if (filter.created_at__lte) query.where('created_at', '<=', filter.created_at__lte);
  return paginate<DeliveryRow>(query, page);
}

export type AttemptOutcomeKind = 'delivered' | 'failed' | 'gone' | 'refused' | 'error';

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  url: string | null;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_snippet: string | null;
  retry_after_seconds: number | null;
  outcome: AttemptOutcomeKind;
  next_attempt_at: string | null;
}

/** Keyed by (delivery, attempt number): a retried write of the same attempt keeps the latest facts. */
export async function upsertAttempt(db: Knex, attempt: AttemptRow): Promise<void> {
  const { delivery_id: _delivery, attempt: _number, ...changes } = attempt;
  await db('webhook_delivery_attempts').insert(attempt).onConflict(['delivery_id', 'attempt']).merge(changes);
}

export async function listAttempts(
  db: Knex,
  deliveryId: string,
): Promise<
  Array<Omit<AttemptRow, 'attempted_at' | 'next_attempt_at'> & { attempted_at: Date; next_attempt_at: Date | null }>
> {
  return db('webhook_delivery_attempts').where({ delivery_id: deliveryId }).orderBy('attempt', 'asc');
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
