import { allHandlersFinished, ApplicationFailure, condition, deprecatePatch, setHandler } from '@temporalio/workflow';
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
import { Routing } from './route-task-routing';
import { createRoutingRun, refusal } from './route-task-run';
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
  const run = createRoutingRun(input);
  const routing = new Routing(run);
  const inbox: Queued[] = [];
  const resolving = () => inbox.some((request) => request.kind === 'resolve');
  // A routing decided before its start takes the decision before the handlers exist: an update that came
  // with the start (the API answers before a worker runs it) is validated against the decision, not an empty routing.
  if (input.decided) {
    Object.assign(run.state, input.decided.state);
    run.outcome = { ok: true, decision: run.state.decision_result! };
    routing.begin(input.decided.decided);
  }

  setHandler(statusQuery, () => run.state);
  setHandler(decideUpdate, async () => {
    await condition(() => run.outcome !== undefined);
    return run.outcome!;
  });
  setHandler(resolveUpdate, (request) => queued(inbox, 'resolve', () => resolve(routing, request)), {
    validator: (request: ResolveRoutingInput) => routing.checkResolvable(request, resolving()),
  });
  setHandler(
    escalateUpdate,
    (request) => queued(inbox, 'escalate', () => escalate(routing, request, requesterActor(request.requested_by))),
    {
      validator: (request: EscalateRoutingInput) => routing.checkEscalatable(request, resolving()),
    },
  );
  setHandler(reportConfidenceUpdate, (report) => queued(inbox, 'confidence', () => reportConfidence(routing, report)), {
    validator: (_report) => routing.checkReportable(resolving()),
  });
  setHandler(assignUpdate, (request) => queued(inbox, 'assign', () => assignByAdmin(routing, request)), {
    validator: (_request) => routing.checkQueued(),
  });
  setHandler(reviewerAvailableSignal, () => {
    if (routing.phase === 'queue') routing.woken = true;
  });
  setHandler(routingResolvedSignal, (resolved) => {
    run.resolved ??= resolved;
  });

  // The input decides which path, so replays of routings that decided in the workflow keep theirs.
  if (!input.decided) routing.begin(await decide(run));
  // Read through a call: a signal or a step sets it while the loop awaits.
  const resolution = () => run.resolved;
  while (routing.open) {
    const resolved = resolution();
    if (resolved) {
      routing.closeResolved(resolved);
      break;
    }
    const remaining = routing.deadline - Date.now();
    const arrived =
      remaining > 0 &&
      (await condition(() => inbox.length > 0 || routing.woken || resolution() !== undefined, remaining));
    if (resolution()) continue;
    try {
      if (!arrived) await timedOut(routing);
      else if (inbox.length > 0) await inbox.shift()!.handle();
      else await reviewerAvailable(routing);
    } catch (error) {
      // A step that found the routing resolved in Postgres was rolled back; the loop closes with the resolution.
      if (!resolution()) throw error;
    }
  }
  for (const request of inbox.splice(0))
    request.refuse(
      refusal(
        FAILURE_TYPES.routingClosed,
        `Routing ${input.routing_id} closed (${run.state.status}) before the request was handled`,
      ),
    );
  // Let in-flight updates reply before the run closes.
  await condition(allHandlersFinished);
  return run.state;
}

/** A request an update handler queued for the main loop, answered once the loop has handled it. */
interface Queued {
  kind: 'resolve' | 'escalate' | 'confidence' | 'assign';
  handle(): Promise<void>;
  refuse(error: ApplicationFailure): void;
}

/**
 * Queues the update's work for the main loop, so that steps never interleave, and answers with its result,
 * or with the refusal the step raised (a state the validator could not foresee, e.g. assigned meanwhile).
 */
async function queued<R>(inbox: Queued[], kind: Queued['kind'], work: () => Promise<R>): Promise<R> {
  let done: { result: R } | { error: ApplicationFailure } | undefined;
  inbox.push({
    kind,
    handle: async () => {
      try {
        done = { result: await work() };
      } catch (error) {
        if (!(error instanceof ApplicationFailure)) throw error;
        done = { error };
      }
    },
    refuse: (error) => {
      done = { error };
    },
  });
  await condition(() => done !== undefined);
  if ('error' in done!) throw done.error;
  return done!.result;
}
