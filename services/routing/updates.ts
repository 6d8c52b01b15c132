import { createHash } from 'node:crypto';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError, type UpdateDefinition } from '@temporalio/common';
import type { Knex } from 'knex';
import { findRoutingById } from '../../db/routings';
import { FAILURE_TYPES } from '../../contracts/failures';
import { ROUTING_REFUSALS, type RoutingRefusal } from '../../contracts/route-task';

export type UpdateFailureCode = 'routing_not_found' | RoutingRefusal;
export type UpdateResult<R> = { ok: true; result: R } | { ok: false; code: UpdateFailureCode; detail: string };

const KNOWN = new Set<string>(ROUTING_REFUSALS);

/** The failure type an update was rejected with, when the workflow rejected it on purpose. */
function rejection(error: unknown): { type: UpdateFailureCode; message: string } | undefined {
  if (!(error instanceof WorkflowUpdateFailedError) || !(error.cause instanceof ApplicationFailure)) return undefined;
  const { type, message } = error.cause;
  if (type && KNOWN.has(type)) return { type: type as UpdateFailureCode, message };
  return undefined;
}

function isClosedOrMissing(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (error instanceof Error && /workflow execution already completed/i.test(error.message));
}

/** An update id from the caller and its Idempotency-Key, so a retried request gets the first answer. */
export function updateIdFor(principalId: string, idempotencyKey: string | undefined): string | undefined {
  return idempotencyKey ? `upd_${createHash('sha256').update(`${principalId}\n${idempotencyKey}`).digest('hex').slice(0, 32)}` : undefined;
}

/**
 * Sends an Update to a routing's workflow and waits for its answer. A refusal by the workflow's validator,
 * or a routing whose workflow has closed or never existed, comes back as a failure value the API turns
 * into its problem; anything else is unexpected and thrown.
 */
export async function sendRoutingUpdate<R, A extends [unknown, ...unknown[]]>(
  deps: { db: Knex; temporal: Client },
  routingId: string,
  update: UpdateDefinition<R, A>,
  args: A,
  updateId?: string,
): Promise<UpdateResult<R>> {
  try {
    const result = await deps.temporal.workflow.getHandle(routingId).executeUpdate(update, { args, ...(updateId ? { updateId } : {}) });
    return { ok: true, result };
  } catch (error) {
    const refused = rejection(error);
    if (refused) return { ok: false, code: refused.type, detail: refused.message };
    if (!isClosedOrMissing(error)) throw error;
    const row = await findRoutingById(deps.db, routingId);
    if (!row) return { ok: false, code: 'routing_not_found', detail: `No routing ${routingId}` };
    return { ok: false, code: FAILURE_TYPES.routingClosed, detail: `Routing ${routingId} is ${row.status} and its workflow has closed` };
  }
}
