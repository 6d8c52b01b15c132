import { routingDecision, type Decided } from '../contracts/route-task-decision';
import { needsHuman } from '../domain/routing/decision';
import { candidatesCover } from '../domain/routing/escalation';
import { decideRoutingMoments } from '../domain/routing/moments';
import { routingActivities, type RoutingRun } from './route-task-run';

/**
 * The decision inside the workflow, answered to the decide update: only routings started before the
 * decision moved to the request path (services/routing/submit.ts) take this step. Delete it once none of
 * them is open.
 */
export async function decide(run: RoutingRun): Promise<Decided> {
  const { task } = run.input;
  const { reviewers, ...context } = await routingActivities.loadRoutingContext(task, run.input.organization_id);
  const { moments, verdict } = decideRoutingMoments({ task, ...context });
  const required = verdict.required_capabilities;
  const candidates = !needsHuman(verdict.decision)
    ? []
    : candidatesCover(task.required_capabilities, required)
      ? reviewers
      : await routingActivities.loadReviewers(required, run.input.organization_id);
  const made = routingDecision({
    input: run.input,
    domain: context.domain,
    moments,
    verdict,
    candidates,
    decided_at: run.now(),
  });
  await run.record(made.steps, made.changes, 'decision_result');
  run.outcome = { ok: true, decision: run.state.decision_result! };
  return made.decided;
}
