import { allHandlersFinished, condition, deprecatePatch, setHandler } from '@temporalio/workflow';
import { FAILURE_TYPES } from '../contracts/failures';
import {
  assignUpdate,
  decideUpdate,
  escalateUpdate,
  reportConfidenceUpdate,
  resolveUpdate,
  reviewerAvailableSignal,
  routingResolvedSignal,
  statusQuery,
  type EscalateRoutingInput,
  type ResolveRoutingInput,
  type RouteTaskInput,
  type RoutingState,
} from '../contracts/route-task';
import { requesterActor } from '../domain/routing/escalation';
import { decide } from './route-task-decide';
import { assignByAdmin, escalate, reportConfidence, resolve } from './route-task-requests';
import { checkEscalatable, checkQueued, checkReportable, checkResolvable } from './route-task-guards';
import { Routing } from './route-task-routing';
import { Inbox } from './route-task-inbox';
import { refusal, RoutingRun } from './route-task-run';
import { reviewerAvailable, timedOut } from './route-task-timeouts';

/**
 * Decides who handles a task and sees the decision through: for a human, waits for their resolution and
 * moves up the escalation chain each time a level's timeout passes; with no qualified human, waits in the
 * queue until one is available; escalates by request (the agent, or someone by hand) and on a confidence
 * report below the Fourth Law's threshold. A reviewer's resolution is claimed in Postgres by the API and
 * comes as a signal (or is found by the next step this run records), and the run closes with it.
 */
export async function routeTaskWorkflow(input: RouteTaskInput): Promise<RoutingState> {
  // Open routings carry the marker of the patch that chose between this path and the one before it;
  // deprecating (not deleting) the patch lets them replay. Delete the call once none of them is open.
  deprecatePatch('orchestration-layer');
  const run = new RoutingRun(input);
  const routing = new Routing(run);
  const inbox = new Inbox();
  // A routing decided before its start takes the decision before the handlers exist: an update that came
  // with the start (the API answers before a worker runs it) is validated against the decision, not an empty routing.
  if (input.decided) {
    run.resume(input.decided);
    routing.begin(input.decided.decided);
    routing.notifyHolder();
  }

  setHandler(statusQuery, () => run.state);
  setHandler(decideUpdate, async () => {
    await condition(() => run.outcome !== undefined);
    return run.outcome!;
  });
  setHandler(resolveUpdate, (request) => inbox.queue('resolve', () => resolve(routing, request)), {
    validator: (request: ResolveRoutingInput) => checkResolvable(routing, request, inbox.resolving),
  });
  setHandler(
    escalateUpdate,
    (request) => inbox.queue('escalate', () => escalate(routing, request, requesterActor(request.requested_by))),
    { validator: (request: EscalateRoutingInput) => checkEscalatable(routing, request, inbox.resolving) },
  );
  setHandler(reportConfidenceUpdate, (report) => inbox.queue('confidence', () => reportConfidence(routing, report)), {
    validator: (_report) => checkReportable(routing, inbox.resolving),
  });
  setHandler(assignUpdate, (request) => inbox.queue('assign', () => assignByAdmin(routing, request)), {
    validator: (_request) => checkQueued(routing),
  });
  setHandler(reviewerAvailableSignal, () => {
    if (routing.phase === 'queue') routing.woken = true;
  });
  setHandler(routingResolvedSignal, (resolved) => {
    run.resolved ??= resolved;
  });

  // The input decides which path, so replays of routings that decided in the workflow keep theirs.
  if (!input.decided) routing.begin(await decide(run));
  while (routing.open) {
    if (run.resolved) routing.closeResolved(run.resolved);
    else await moveOn(routing, inbox);
  }
  const closed = `Routing ${input.routing_id} closed (${run.state.status}) before the request was handled`;
  inbox.refuseAll(refusal(FAILURE_TYPES.routingClosed, closed));
  // Let in-flight updates reply before the run closes.
  await condition(allHandlersFinished);
  return run.state;
}

/**
 * Waits for what moves the routing on (a request, a reviewer available, its deadline) and takes that step.
 * A resolution claimed in Postgres meanwhile ends the wait, or rolled the step back: the loop closes with it.
 */
async function moveOn(routing: Routing, inbox: Inbox): Promise<void> {
  // Read through a call: a signal or a step sets it while this awaits.
  const resolved = () => routing.run.resolved !== undefined;
  const remaining = routing.wakeAt - Date.now();
  const arrived = remaining > 0 && (await condition(() => inbox.waiting || routing.woken || resolved(), remaining));
  if (resolved()) return;
  try {
    if (!arrived) await timedOut(routing);
    else if (inbox.waiting) await inbox.handleNext();
    else await reviewerAvailable(routing);
  } catch (error) {
    if (!resolved()) throw error;
  }
}
