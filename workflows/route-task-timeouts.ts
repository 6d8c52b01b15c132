import { ORCH_CORE_DID, type ProvenanceActor } from '../domain/provenance/records';
import { assignReviewer, humanAssignee } from '../domain/routing/reviewer-assignment';
import { nextOnTimeout, nextQueueLevel } from '../domain/routing/escalation';
import { coveringFor } from '../domain/routing/steps';
import { chainEscalationRecord, queueRaisedRecord } from '../domain/routing/waiting-steps';
import type { Routing } from './route-task-routing';
import { routingActivities } from './route-task-run';

const ORCH_CORE: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

/**
 * The holder's time ran out: the agent's window closes (to a supervisor's review while that window lasts),
 * the review window closes; a human's level moves up the chain, or expires at its top; a queued routing
 * looks for a reviewer once more, else rises a level, or expires past urgent.
 */
export async function timedOut(routing: Routing): Promise<void> {
  if (routing.phase === 'agent') {
    routing.endAgentWindow();
    return;
  }
  if (routing.phase === 'review') {
    routing.phase = 'closed';
    return;
  }
  if (routing.phase === 'queue') {
    // Woken before the deadline: a need's stated wait ran out, so a reviewer lacking it may take the routing now.
    if (Date.now() < routing.deadline) {
      await assignFromQueue(routing);
      return;
    }
    return queueTimedOut(routing);
  }
  const { run, routingId: routing_id } = routing;
  const from = routing.current!;
  const timed_out_after_seconds = routing.timeoutOf(routing.level);
  const moved = nextOnTimeout(
    await routingActivities.loadReviewers(routing.needs, routing.run.input.organization_id),
    routing.needs,
    from,
    routing.level,
  );
  if (!moved) return routing.expire(timed_out_after_seconds);
  const { next, level } = moved;
  const chain_level = run.state.escalation_chain.length + 1;
  const at = run.now();
  routing.current = next;
  routing.level = level;
  await run.record(
    [
      chainEscalationRecord({
        routing_id,
        task_id: run.input.request_id,
        from_did: from.did,
        timed_out_after_seconds,
        to_did: next.did,
        covering_for: next.covering_for,
        level,
        chain_level,
        notifications: routing.notify(level),
      }),
    ],
    {
      escalation_level: level,
      assigned_to: humanAssignee(next),
      assigned_at: at,
      estimated_response_time: routing.timeoutOf(level),
      escalation_chain: [
        ...run.state.escalation_chain,
        { level: chain_level, escalation_level: level, did: next.did, ...coveringFor(next), timestamp: at },
      ],
    },
  );
  routing.deadline = Date.parse(at) + routing.timeoutOf(level) * 1000;
}

async function queueTimedOut(routing: Routing): Promise<void> {
  // A reviewer may have become available without the signal reaching the routing.
  if (await assignFromQueue(routing)) return;
  const { run, routingId: routing_id } = routing;
  const waited_seconds = routing.timeoutOf(routing.level);
  const level = nextQueueLevel(routing.level);
  if (!level) return routing.expire(waited_seconds, true);
  routing.queueSteps += 1;
  const at = run.now();
  const record = queueRaisedRecord({
    routing_id,
    step: routing.queueSteps,
    from_level: routing.level,
    level,
    waited_seconds,
    needs: routing.needs,
    notifications: routing.notify(level),
  });
  await run.record([record], { escalation_level: level, estimated_response_time: routing.timeoutOf(level) });
  routing.queue(level, at);
}

/** A reviewer may have become available (the reviewerAvailable signal): a queued routing looks again. */
export async function reviewerAvailable(routing: Routing): Promise<void> {
  routing.woken = false;
  if (routing.phase === 'queue') await assignFromQueue(routing);
}

async function assignFromQueue(routing: Routing): Promise<boolean> {
  const found = assignReviewer(
    await routingActivities.loadReviewers(routing.needs, routing.run.input.organization_id),
    routing.needs,
    { waitedSeconds: routing.waitedSeconds },
  );
  if (found) await routing.assignFromQueue(found, { actor: ORCH_CORE, by_admin: false, qualified: true });
  return found !== undefined;
}
