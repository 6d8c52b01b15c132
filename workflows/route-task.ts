import { allHandlersFinished, condition, deprecatePatch, setHandler, type ApplicationFailure } from '@temporalio/workflow';
import { FAILURE_TYPES } from '../contracts/failures';
import { decideUpdate, escalateUpdate, reportConfidenceUpdate, resolveUpdate, statusQuery, type RouteTaskInput, type RoutingState } from '../contracts/route-task';
import { requesterActor } from '../domain/routing-escalation';
import { decide } from './route-task-decide';
import { Routing } from './route-task-routing';
import { createRoutingRun, refusal, type RoutingRun } from './route-task-run';

/**
 * Decides who handles a task and sees the decision through: for a human, waits for their resolution and
 * moves up the escalation chain each time a level's timeout passes; escalates by request (the agent, or
 * someone by hand) and on a confidence report below the Fourth Law's threshold.
 */
export async function routeTaskWorkflow(input: RouteTaskInput): Promise<RoutingState> {
  // Open routings carry the marker of the patch that chose between this path and the one before it;
  // deprecating (not deleting) the patch lets them replay. Delete the call once none of them is open.
  deprecatePatch('orchestration-layer');
  const run = createRoutingRun(input);
  setHandler(statusQuery, () => run.state);
  setHandler(decideUpdate, async () => {
    await condition(() => run.outcome !== undefined);
    return run.outcome!;
  });
  await route(run);
  // Let in-flight updates reply before the run closes.
  await condition(allHandlersFinished);
  return run.state;
}

/** A request an update handler queued for the main loop, answered once the loop has handled it. */
interface Queued {
  kind: 'resolve' | 'escalate' | 'confidence';
  handle(): Promise<void>;
  refuse(error: ApplicationFailure): void;
}

/** Queues the update's work for the main loop, so that steps never interleave, and answers with its result or refusal. */
async function queued<R>(inbox: Queued[], kind: Queued['kind'], work: () => Promise<R>): Promise<R> {
  let done: { result: R } | { error: ApplicationFailure } | undefined;
  inbox.push({
    kind,
    handle: async () => {
      done = { result: await work() };
    },
    refuse: (error) => {
      done = { error };
    },
  });
  await condition(() => done !== undefined);
  if ('error' in done!) throw done.error;
  return done!.result;
}

async function route(run: RoutingRun): Promise<void> {
  const routing = new Routing(run);
  const inbox: Queued[] = [];
  const resolving = () => inbox.some((request) => request.kind === 'resolve');

  setHandler(resolveUpdate, (request) => queued(inbox, 'resolve', () => routing.resolve(request)), { validator: (request) => routing.checkResolvable(request, resolving()) });
  setHandler(escalateUpdate, (request) => queued(inbox, 'escalate', () => routing.escalate(request, requesterActor(request.requested_by))), { validator: (_request) => routing.checkOpen(resolving()) });
  setHandler(reportConfidenceUpdate, (report) => queued(inbox, 'confidence', () => routing.reportConfidence(report)), { validator: (_request) => routing.checkOpen(resolving()) });

  routing.begin(await decide(run));
  while (routing.open) {
    const remaining = routing.deadline - Date.now();
    const arrived = remaining > 0 && (await condition(() => inbox.length > 0, remaining));
    if (arrived) await inbox.shift()!.handle();
    else await routing.timedOut();
  }
  for (const request of inbox.splice(0)) request.refuse(refusal(FAILURE_TYPES.routingClosed, `Routing ${run.input.routing_id} closed (${run.state.status}) before the request was handled`));
}
