import type { Knex } from 'knex';
import { RecoveryRequestState } from '../contracts/aggregates/recovery-request';
import { rowOf } from '../lib/shape';
import { OPEN_RECOVERY_STATUSES } from '../domain/recovery/statuses';
import { upsertProjection } from './projections';
import type { PendingStart } from './workflow-starts';

const requestRow = rowOf(RecoveryRequestState).of;

const INSTANTS = [
  'approvals_due_at',
  'unlocks_at',
  'code_expires_at',
  'created_at',
  'completed_at',
  'updated_at',
] as const satisfies readonly (keyof RecoveryRequestState)[];

/** The state as the workflow holds it: instants as ISO strings, unset fields absent. */
export function recoveryFromRow(row: Record<string, unknown>): RecoveryRequestState {
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (value !== null) state[key] = value;
  for (const key of INSTANTS) if (row[key] instanceof Date) state[key] = row[key].toISOString();
  return state as RecoveryRequestState;
}

/** Whether the Passport has an open request (inside the transaction that holds the Passport's lock). */
export async function hasOpenRecovery(db: Knex, passportId: string): Promise<boolean> {
  const row = await db('recovery_requests')
    .where({ passport_id: passportId })
    .whereIn('status', [...OPEN_RECOVERY_STATUSES])
    .first<{ request_id: string } | undefined>('request_id');
  return row !== undefined;
}

/** The opened request, and its workflow's pending start, in the caller's transaction. */
export async function insertOpenedRecovery(
  trx: Knex.Transaction,
  state: RecoveryRequestState,
  start: PendingStart,
): Promise<void> {
  await trx('recovery_requests').insert(requestRow(state));
  await trx('workflow_starts').insert({
    workflow_id: start.workflow_id,
    workflow_type: start.workflow_type,
    task_queue: start.task_queue,
    args: JSON.stringify(start.args),
    search_attributes: JSON.stringify(start.search_attributes),
  });
}

/** Applies the workflow's state only when newer than what is stored. */
export async function upsertRecoveryProjection(db: Knex, state: RecoveryRequestState): Promise<void> {
  await upsertProjection(db, 'recovery_requests', { key: 'request_id', once: ['created_at'] }, requestRow(state));
}

export async function findRecoveryRequest(
  db: Knex,
  organizationId: string,
  passportId: string,
  requestId: string,
): Promise<RecoveryRequestState | undefined> {
  const row = (await db('recovery_requests')
    .where({ organization_id: organizationId, passport_id: passportId, request_id: requestId })
    .first()) as Record<string, unknown> | undefined;
  return row ? recoveryFromRow(row) : undefined;
}
