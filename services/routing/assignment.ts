import { findAvailableReviewer } from '../../db/reviewers';
import { assignUpdate, type AssignReviewerInput, type EscalationRecord } from '../../contracts/route-task';
import type { Principal } from '../identity/scopes';
import type { RoutingServiceDeps } from './submit';
import { sendRoutingUpdate, type UpdateResult } from './updates';

/**
 * An admin hands a queued routing to a reviewer of their choice: any registered, available reviewer,
 * whether or not they hold every capability the routing waits for (the record says which they hold).
 */
export async function assignQueuedRouting(
  deps: RoutingServiceDeps,
  principal: Principal,
  request: Pick<AssignReviewerInput, 'reason'> & { routing_id: string; reviewer_did: string },
  updateId: string | undefined,
): Promise<UpdateResult<EscalationRecord> | { ok: false; code: 'reviewer_not_available'; detail: string }> {
  const reviewer = await findAvailableReviewer(deps.db, principal.organization_id, request.reviewer_did);
  if (!reviewer)
    return {
      ok: false,
      code: 'reviewer_not_available',
      detail: `No available reviewer is registered as ${request.reviewer_did}`,
    };
  return sendRoutingUpdate(
    deps,
    principal.organization_id,
    request.routing_id,
    assignUpdate,
    [
      {
        reviewer: { did: reviewer.did, capabilities: reviewer.capabilities, chain_level: reviewer.chain_level },
        assigned_by: { subject: principal.subject, principal_id: principal.id },
        reason: request.reason,
      },
    ],
    updateId,
  );
}
