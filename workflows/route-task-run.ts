import { ApplicationFailure, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createRoutingActivities } from '../activities/routing';
import type { LedgerAnchor } from '../domain/provenance/records';
import type { RoutingStepRecord } from '../domain/routing/steps';
import { FAILURE_TYPES } from '../contracts/failures';
import {
  DecisionKey,
  EscalationLevelKey,
  RoutingStatusKey,
  type DecideOutcome,
  type RouteTaskInput,
  type RoutingRefusal,
  type RoutingState,
} from '../contracts/route-task';

/** What routeTaskWorkflow's steps share inside the workflow: refusals, activities and the step recorder. */

export function refusal(type: RoutingRefusal, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

export { PENDING_ANCHOR } from '../contracts/route-task-decision';

// Local activities: short Postgres reads and writes on the path of the synchronous decision, without a
// round trip through the server for each one.
export const routingActivities = proxyLocalActivities<ReturnType<typeof createRoutingActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 ms', maximumInterval: '10 seconds' },
});

export interface RoutingRun {
  readonly input: RouteTaskInput;
  readonly state: RoutingState;
  outcome: DecideOutcome | undefined;
  /** The routing as a reviewer's resolution claimed in Postgres left it (its signal, or a step that found it taken): the run closes with it. */
  resolved: RoutingState | undefined;
  now(): string;
  /**
   * Records provenance steps and the state they leave in one local activity; returns the last step's
   * anchor. The search attributes follow the state so that the Temporal UI filters on what the read model
   * shows. Throws routing_closed, with `resolved` set, when a resolution claimed the routing first.
   */
  record(
    steps: RoutingStepRecord[],
    changes: Partial<RoutingState>,
    anchor_in?: 'decision_result' | 'resolution',
  ): Promise<LedgerAnchor>;
}

export function createRoutingRun(input: RouteTaskInput): RoutingRun {
  const { task, routing_id } = input;
  const now = () => new Date().toISOString();
  const state: RoutingState = {
    routing_id,
    version: 0,
    status: 'pending',
    task_type: task.task_type,
    ai_agent_id: task.ai_agent_id,
    ai_confidence: task.ai_confidence,
    escalation_level: 'none',
    escalation_chain: [],
    created_at: new Date(workflowInfo().startTime).toISOString(),
    updated_at: now(),
  };
  const run: RoutingRun = {
    input,
    state,
    outcome: undefined,
    resolved: undefined,
    now,
    async record(steps, changes, anchor_in) {
      const at = now();
      Object.assign(state, changes, { version: state.version + 1, updated_at: at });
      upsertSearchAttributes([
        { key: RoutingStatusKey, value: state.status },
        { key: EscalationLevelKey, value: state.escalation_level },
        ...(state.decision ? [{ key: DecisionKey, value: state.decision }] : []),
      ]);
      const recorded = await routingActivities.recordRoutingStep({
        provenance: steps.map(({ step_id, entry, events }) => ({
          entry: { subject_id: routing_id, step_id, timestamp: at, ...entry },
          events,
        })),
        projection: {
          state: { ...state },
          request_id: input.request_id,
          task,
          requested_by: input.requested_by,
          organization_id: input.organization_id,
        },
        anchor_in,
      });
      if ('resolved_meanwhile' in recorded) {
        run.resolved ??= recorded.resolved_meanwhile;
        throw refusal(
          FAILURE_TYPES.routingClosed,
          `Routing ${routing_id} was resolved by ${recorded.resolved_meanwhile.resolution?.reviewer_did ?? 'a reviewer'} meanwhile`,
        );
      }
      const anchor = recorded;
      if (anchor_in === 'decision_result' && state.decision_result)
        state.decision_result.provenance.ledger_anchor = anchor;
      if (anchor_in === 'resolution' && state.resolution) state.resolution.ledger_anchor = anchor;
      return anchor;
    },
  };
  return run;
}
