import { ApplicationFailure, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createRoutingActivities } from '../activities/routing';
import type { LedgerAnchor } from '../domain/provenance/records';
import type { RoutingStepRecord } from '../domain/routing/steps';
import { FAILURE_TYPES } from '../contracts/failures';
import {
  DecisionKey,
  EscalationLevelKey,
  RoutingStatusKey,
  type DecideOutcome,
  type RecordedDecision,
  type RouteTaskInput,
  type RoutingRefusal,
  type RoutingState,
} from '../contracts/route-task';
import { RecordedState } from './recorded-state';

/** What routeTaskWorkflow's steps share inside the workflow: refusals, activities and the run that records them. */

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

/**
 * One routing's run: its input, its state as recorded through RecordedState, and what its decide update and
 * a reviewer's claimed resolution leave for the main loop.
 */
export class RoutingRun {
  outcome: DecideOutcome | undefined;
  /** The routing as a reviewer's resolution claimed in Postgres left it (its signal, or a step that found it taken): the run closes with it. */
  resolved: RoutingState | undefined;
  private readonly recorded: RecordedState<RoutingState>;

  constructor(readonly input: RouteTaskInput) {
    const { task, routing_id } = input;
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
      updated_at: this.now(),
    };
    // No failed status: a step that cannot be stored fails the workflow with the step's own error.
    this.recorded = new RecordedState(state, {
      searchAttributes: (current) => [
        { key: RoutingStatusKey, value: current.status },
        { key: EscalationLevelKey, value: current.escalation_level },
        ...(current.decision ? [{ key: DecisionKey, value: current.decision }] : []),
      ],
    });
  }

  get state(): RoutingState {
    return this.recorded.state;
  }

  now(): string {
    return new Date().toISOString();
  }

  /** Takes the decision the routing service recorded before the start; the start carried its search attributes. */
  resume(decided: RecordedDecision): void {
    this.recorded.resume(decided.state);
    this.outcome = { ok: true, decision: this.state.decision_result! };
  }

  /**
   * Records provenance steps and the state they leave in one local activity; returns the last step's
   * anchor. Throws routing_closed, with `resolved` set, when a resolution claimed the routing first.
   */
  async record(
    steps: RoutingStepRecord[],
    changes: Partial<RoutingState>,
    anchor_in?: 'decision_result' | 'resolution',
  ): Promise<LedgerAnchor> {
    const { input, state } = this;
    const at = this.now();
    this.recorded.change(changes, at);
    const recorded = await this.recorded.record((snapshot) =>
      routingActivities.recordRoutingStep({
        provenance: steps.map(({ step_id, entry, events }) => ({
          entry: { subject_id: input.routing_id, step_id, timestamp: at, ...entry },
          events,
        })),
        projection: {
          state: snapshot,
          request_id: input.request_id,
          task: input.task,
          requested_by: input.requested_by,
          organization_id: input.organization_id,
        },
        anchor_in,
      }),
    );
    if ('resolved_meanwhile' in recorded) {
      this.resolved ??= recorded.resolved_meanwhile;
      throw refusal(
        FAILURE_TYPES.routingClosed,
        `Routing ${input.routing_id} was resolved by ${recorded.resolved_meanwhile.resolution?.reviewer_did ?? 'a reviewer'} meanwhile`,
      );
    }
    if (anchor_in === 'decision_result' && state.decision_result)
      state.decision_result.provenance.ledger_anchor = recorded;
    if (anchor_in === 'resolution' && state.resolution) state.resolution.ledger_anchor = recorded;
    return recorded;
  }
}
