import type { Knex } from 'knex';
import { DeliveryState } from '../contracts/aggregates/delivery';
import type { DeliveryStatus } from '../domain/webhooks/rules';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';
import { stateOfRow, type ProjectedRow } from './projected-rows';
import { upsertProjection } from './projections';

/** A delivery's state as webhook_deliveries holds it: unset fields null, instants as Date. */
export type DeliveryRow = ProjectedRow<DeliveryState, 'next_attempt_at' | 'created_at' | 'updated_at' | 'completed_at'>;

const deliveryRow = rowOf(DeliveryState);

/** Applies a delivery workflow's state only when it is newer than what is stored. */
export async function upsertDeliveryProjection(db: Knex, state: DeliveryState): Promise<void> {
  // A delivery belongs to its subscription's organization.
  const organization_id = db('webhook_subscriptions')
    .select('organization_id')
    .where({ subscription_id: state.subscription_id });
  await upsertProjection(
    db,
    'webhook_deliveries',
    {
      key: 'delivery_id',
      once: ['subscription_id', 'event_id', 'event', 'replay_of', 'created_at', 'organization_id'],
    },
    { ...deliveryRow.of(state), organization_id },
  );
}

export async function findDelivery(
  db: Knex,
  organizationId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  return db<DeliveryRow>('webhook_deliveries')
    .select(...deliveryRow.columns)
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
    .select(...deliveryRow.columns)
    .where({ subscription_id: subscriptionId });
  if (filter.status) query.where({ status: filter.status });
  if (filter.event) query.where({ event: filter.event });
  if (filter.event_id) query.where({ event_id: filter.event_id });
  if (filter.created_at__gte) query.where('created_at', '>=', filter.created_at__gte);
  if (filter.created_at__lte) query.where('created_at', '<=', filter.created_at__lte);
  return paginate<DeliveryRow>(query, page);
}

/** The row as the workflow's state. */
export function deliveryFromRow(row: DeliveryRow): DeliveryState {
  return stateOfRow(DeliveryState, row);
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
