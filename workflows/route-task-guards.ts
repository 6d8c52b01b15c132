import { FAILURE_TYPES } from '../contracts/failures';
import type { EscalateRoutingInput, ResolveRoutingInput } from '../contracts/route-task';
import { mayReopenForReview, resolutionRefusal } from '../domain/routing/escalation';
import { refusal } from './route-task-run';
import type { Routing } from './route-task-routing';

/*
 * The Update validators of a routing: each refuses a request the routing, in its phase, no longer takes, before
 * anything of it is written to the history.
 */

/** Refuses a resolution unless a human holds the routing and the reviewer is on its chain. */
export function checkResolvable(routing: Routing, request: ResolveRoutingInput, resolving: boolean): void {
  const { state } = routing.run;
  if (routing.phase !== 'human' || resolving) {
    throw refusal(
      FAILURE_TYPES.routingNotAwaitingReview,
      `Routing ${routing.routingId} is ${resolving ? 'already being resolved' : state.status}, not awaiting review`,
    );
  }
  const refused = resolutionRefusal(state, request.reviewer_did);
  if (refused) throw refusal(refused.code, refused.detail);
}

/** Refuses an escalation once the routing no longer takes it; under review, only a human's (a supervisor's). */
export function checkEscalatable(routing: Routing, request: EscalateRoutingInput, resolving: boolean): void {
  if (routing.phase === 'review' && !mayReopenForReview(request.requested_by)) {
    throw refusal(
      FAILURE_TYPES.routingClosed,
      `Routing ${routing.routingId} was decided for the agent and its escalation window has ended; only a supervisor's manual escalation can reopen it`,
    );
  }
  checkReportable(routing, resolving, true);
}

/** Refuses a confidence report (or an escalation) once the routing no longer takes them. */
export function checkReportable(routing: Routing, resolving: boolean, escalating = false): void {
  if (!routing.open || resolving || (routing.phase === 'review' && !escalating)) {
    throw refusal(
      FAILURE_TYPES.routingClosed,
      `Routing ${routing.routingId} is ${routing.run.state.status} and no longer takes escalations or confidence reports`,
    );
  }
}

/** Refuses an assignment by hand unless the routing waits in the queue. */
export function checkQueued(routing: Routing): void {
  if (routing.phase !== 'queue')
    throw refusal(
      FAILURE_TYPES.routingNotQueued,
      `Routing ${routing.routingId} is ${routing.run.state.status}, not waiting in the queue for a reviewer`,
    );
}
