import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { Knex } from 'knex';
import { findRoutingById } from '../../db/routings';
import { FAILURE_TYPES } from '../../contracts/failures';
import { ROUTING_REFUSALS, type RoutingRefusal } from '../../contracts/route-task';
import { isClosedOrMissing, updateRejection } from '../../lib/temporal-client';
import { callOnceStarted } from '../workflow-starts/starts';

export type UpdateFailureCode = 'routing_not_found' | RoutingRefusal;
export type UpdateResult<R> = { ok: true; result: R } | { ok: false; code: UpdateFailureCode; detail: string };

/**
 * Sends an Update to a routing's workflow and waits for its answer. A refusal by the workflow's validator,
 * or a routing whose workflow has closed or never existed, comes back as a failure value the API turns
 * into its problem; anything else is unexpected and thrown.
 */
export async function sendRoutingUpdate<R, A extends [unknown, ...unknown[]]>(
  deps: { db: Knex; temporal: Client },
  organizationId: string,
  routingId: string,
  update: UpdateDefinition<R, A>,
  args: A,
  updateId?: string,
): Promise<UpdateResult<R>> {
  // Another organization's routing is answered as an unknown one; its workflow never hears of the request.
  if (!(await findRoutingById(deps.db, organizationId, routingId)))
    return { ok: false, code: 'routing_not_found', detail: `No routing ${routingId}` };
  const send = () =>
    deps.temporal.workflow.getHandle(routingId).executeUpdate(update, { args, ...(updateId ? { updateId } : {}) });
  try {
    return { ok: true, result: await callOnceStarted(deps, routingId, send) };
  } catch (error) {
    const refused = updateRejection(error, ROUTING_REFUSALS);
    if (refused) return { ok: false, code: refused.type, detail: refused.message };
    if (!isClosedOrMissing(error)) throw error;
    const row = await findRoutingById(deps.db, organizationId, routingId);
    if (!row) return { ok: false, code: 'routing_not_found', detail: `No routing ${routingId}` };
    return {
      ok: false,
      code: FAILURE_TYPES.routingClosed,
      detail: `Routing ${routingId} is ${row.status} and its workflow has closed`,
    };
  }
}
