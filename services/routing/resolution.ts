import { resolveUpdate, type ResolveRoutingInput, type RoutingResolution } from '../../contracts/route-task';
import { reviewerDidsOfPassport } from '../../db/reviewers';
import { findRoutingById } from '../../db/routings';
import { humanActorOf, type HumanActRefusal } from '../../domain/human-acts';
import type { Principal } from '../auth/tokens';
import type { RoutingServiceDeps } from './submit';
import { sendRoutingUpdate, type UpdateResult } from './updates';

export type ResolveRequest = Omit<ResolveRoutingInput, 'reviewer_did' | 'actor'> & { routing_id: string; reviewer_did?: string | undefined };

/**
 * A reviewer resolves a routing: only a signed-in person, as a reviewer they are (their own DID, or a
 * reviewer linked to their Passport). Without reviewer_did, the latest of those on the routing's chain
 * resolves it; the routing workflow then refuses anyone not on the chain.
 */
export async function resolveRoutingAs(
  deps: RoutingServiceDeps,
  caller: Principal,
  request: ResolveRequest,
  updateId: string | undefined,
): Promise<UpdateResult<RoutingResolution> | HumanActRefusal> {
  const aliases = caller.actor ? await reviewerDidsOfPassport(deps.db, caller.actor.passport_id) : [];
  const acting = humanActorOf(caller, 'resolve_routing', request.reviewer_did, aliases);
  if (!acting.ok) return acting;
  const { routing_id, reviewer_did: named, ...resolution } = request;
  const reviewer_did = named ?? (await chainIdentity(deps, caller.organization_id, routing_id, [acting.actor.did, ...aliases])) ?? acting.actor.did;
  return sendRoutingUpdate(deps, caller.organization_id, routing_id, resolveUpdate, [{ ...resolution, reviewer_did, actor: acting.actor }], updateId);
}

/** The latest entry of the routing's escalation chain that is one of the person's identities. */
async function chainIdentity(deps: RoutingServiceDeps, organizationId: string, routingId: string, identities: string[]): Promise<string | undefined> {
  const row = await findRoutingById(deps.db, organizationId, routingId);
  return [...(row?.escalation_chain ?? [])].reverse().find((entry) => identities.includes(entry.did))?.did;
}
