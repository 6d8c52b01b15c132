import {
  routingResolvedSignal,
  type ResolveRoutingInput,
  type RoutingResolution,
  type RoutingState,
} from '../../contracts/route-task';
import { appendProvenance } from '../../db/ledger';
import { reviewerDidsOfPassport } from '../../db/reviewers';
import { claimRoutingResolution, findRoutingById, routingStateOf, type RoutingRow } from '../../db/routings';
import type { PendingSignal } from '../../db/workflow-starts';
import { humanActorOf, type HumanActCaller, type HumanActRefusal } from '../../domain/identity/human-acts';
import { resolutionRefusal } from '../../domain/routing/escalation';
import { resolutionRecord } from '../../domain/routing/request-steps';
import type { Logger } from '../../lib/logger';
import type { Principal } from '../identity/scopes';
import { deliverAfterCommit } from '../workflow-starts/signals';
import { FREED_REVIEWER_OFFERS, offerReviewer } from './queue';
import type { RoutingServiceDeps } from './submit';
import type { UpdateResult } from './updates';

export type ResolveRequest = Omit<ResolveRoutingInput, 'reviewer_did' | 'actor'> & {
  routing_id: string;
  reviewer_did?: string | undefined;
};

/** Times a resolution reads the routing again when a step of its workflow changed it between the read and the claim. */
const CLAIM_ATTEMPTS = 3;

/**
 * A reviewer resolves a routing: only a signed-in person, as a reviewer they are (their own DID, or a
 * reviewer linked to their Passport), who is on the routing's escalation chain while a human holds it.
 * Without reviewer_did, the latest of those on the chain resolves it. The resolution is claimed in Postgres
 * (claimResolution), so exactly one ever wins and any other gets routing_not_awaiting_review at once; the
 * workflow hears of it by a signal committed with the claim, delivered after the answer (or by the
 * dispatcher, should this process die first), and closes with it.
 */
export async function resolveRoutingAs(
  deps: RoutingServiceDeps & { logger: Logger },
  caller: HumanActCaller & Pick<Principal, 'organization_id'>,
  request: ResolveRequest,
): Promise<UpdateResult<RoutingResolution> | HumanActRefusal> {
  const aliases = caller.actor
    ? await reviewerDidsOfPassport(deps.db, caller.organization_id, caller.actor.passport_id)
    : [];
  const acting = humanActorOf(caller, 'resolve_routing', request.reviewer_did, aliases);
  if (!acting.ok) return acting;
  const { routing_id, reviewer_did: named, ...resolution } = request;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
    const row = await findRoutingById(deps.db, caller.organization_id, routing_id);
    if (!row) return { ok: false, code: 'routing_not_found', detail: `No routing ${routing_id}` };
    const read = routingStateOf(row);
    const reviewer_did = named ?? chainIdentity(read, [acting.actor.did, ...aliases]) ?? acting.actor.did;
    const refused = resolutionRefusal(read, reviewer_did);
    if (refused) return { ok: false, ...refused };
    const claimed = await claimResolution(deps, row, read, { ...resolution, reviewer_did, actor: acting.actor });
    if (!claimed) continue;
    deliverAfterCommit(deps, claimed.signal);
    // A freed reviewer may be what a queued routing waits for; the queue's own timeouts cover a lost offer.
    for (const did of claimed.released) {
      await offerReviewer(deps, caller.organization_id, did, FREED_REVIEWER_OFFERS).catch((error: unknown) =>
        deps.logger.warn('offering a freed reviewer failed', { reviewer_did: did, error }),
      );
    }
    return { ok: true, result: claimed.resolution };
  }
  return {
    ok: false,
    code: 'routing_not_awaiting_review',
    detail: `Routing ${routing_id} changed while it was being resolved; read it again and retry`,
  };
}

/** The latest entry of the routing's escalation chain that is one of the person's identities. */
function chainIdentity(routing: RoutingState, identities: string[]): string | undefined {
  return [...routing.escalation_chain].reverse().find((entry) => identities.includes(entry.did))?.did;
}

/**
 * The resolution of the routing as read, in one transaction: its provenance record (step `resolution`, so
 * there is only ever one) with its event, then the conditional write that takes only the version read while
 * a human holds it, with the reviewer's assignment released and the workflow's signal. When the write does
 * not take the routing (resolved, or moved on by its workflow since the read), all of it is rolled back.
 */
async function claimResolution(
  deps: Pick<RoutingServiceDeps, 'db'>,
  row: RoutingRow,
  read: RoutingState,
  input: ResolveRoutingInput,
): Promise<{ resolution: RoutingResolution; signal: PendingSignal; released: string[] } | undefined> {
  const { routing_id } = read;
  const { organization_id } = row;
  const at = new Date().toISOString();
  const record = resolutionRecord({ routing_id, ai_recommendation: row.task.ai_recommendation, resolution: input });
  const trx = await deps.db.transaction();
  try {
    const ledger_anchor = await appendProvenance(trx, {
      entry: { subject_id: routing_id, step_id: record.step_id, timestamp: at, ...record.entry },
      events: record.events,
      organization_id,
    });
    const resolution: RoutingResolution = { ...input, resolved_at: at, ledger_anchor };
    const resolved: RoutingState = {
      ...read,
      status: 'completed',
      resolution,
      version: read.version + 1,
      updated_at: at,
    };
    const signal: PendingSignal = {
      workflow_id: routing_id,
      signal_name: routingResolvedSignal.name,
      args: [resolved],
    };
    const claimed = await claimRoutingResolution(trx, {
      routing_id,
      organization_id,
      read_version: read.version,
      resolved,
      signal: { name: signal.signal_name, args: signal.args },
    });
    if (!claimed) {
      await trx.rollback();
      return undefined;
    }
    await trx.commit();
    return { resolution, signal, released: claimed.released };
  } catch (error) {
    if (!trx.isCompleted()) await trx.rollback();
    throw error;
  }
}
