import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { routingDecision, type RoutingDecision } from '../../contracts/route-task-decision';
import { ledgerAppendCall, transactionIdFor } from '../../db/ledger';
import { findRoutingById, insertDecidedRouting, openAssignmentOf } from '../../db/routings';
import { needsHuman } from '../../domain/routing/decision';
import { candidatesCover } from '../../domain/routing/escalation';
import { decideRoutingMoments } from '../../domain/routing/moments';
import { refusedWrite } from '../platform/refusals';
import { startAfterCommit, startIfPending, type PendingStart } from '../workflow-starts/starts';
import { loadReviewers, loadRoutingContext } from './context';
import {
  AgentIdKey,
  ConfidenceKey,
  DecisionKey,
  EscalationLevelKey,
  ROUTE_TASK_WORKFLOW_TYPE,
  RoutingStatusKey,
  TaskTypeKey,
  type DecideOutcome,
  type RouteTaskInput,
  type RoutingState,
} from '../../contracts/route-task';
import { recordRoutingDecision } from '../observability/metrics';

export interface RoutingServiceDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  escalationTimeoutsSeconds: RouteTaskInput['escalation_timeouts_seconds'];
  // Required, unlike in the input: an entry that left them out would route without the deployment's windows.
  autonomousEscalationWindowSeconds: NonNullable<RouteTaskInput['autonomous_escalation_window_seconds']>;
  reviewWindowSeconds: NonNullable<RouteTaskInput['review_window_seconds']>;
}

/** The workflow's input without the deployment's settings, which submitRouting adds. */
export type SubmitRoutingInput = Pick<RouteTaskInput, 'routing_id' | 'request_id' | 'requested_by' | 'task'> & {
  organization_id: string;
};

/** The routing's id was decided before (a retry of the same request): its first decision stands. */
class DecidedBefore extends Error {
  override name = 'DecidedBefore';
}

/**
 * Decides and records, and answers at commit: one read of the context, the decision in domain/'s four moments,
 * one statement for the routing row (with the reviewer's assignment), its provenance records and events and
 * the pending start; the plain start of the routing workflow with the decision in its input (workflow id =
 * routing id), which carries it on in time, is made behind the answer. A crash between the commit and the
 * start loses nothing: the outbox dispatcher, or a retry of the request, starts it. A routing id decided
 * before is answered with its first decision, never decided twice. Every entry that routes a task (POST
 * /routing, the agent operations, platform tasks) goes through here.
 */
export async function submitRouting(deps: RoutingServiceDeps, submission: SubmitRoutingInput): Promise<DecideOutcome> {
  const input: RouteTaskInput & { organization_id: string } = {
    ...submission,
    escalation_timeouts_seconds: deps.escalationTimeoutsSeconds,
    autonomous_escalation_window_seconds: deps.autonomousEscalationWindowSeconds,
    review_window_seconds: deps.reviewWindowSeconds,
  };
  const { task } = input;
  const { reviewers, ...context } = await loadRoutingContext(deps.db, submission.organization_id, task);
  const { moments, verdict } = decideRoutingMoments({ task, ...context });
  const required = verdict.required_capabilities;
  const candidates = !needsHuman(verdict.decision)
    ? []
    : candidatesCover(task.required_capabilities, required)
      ? reviewers
      : await loadReviewers(deps.db, submission.organization_id, required);
  const made = routingDecision({
    input,
    domain: context.domain,
    moments,
    verdict,
    candidates,
    decided_at: new Date().toISOString(),
  });
  try {
    const { start, state } = await recordDecision(deps, input, made);
    recordRoutingDecision(verdict);
    startAfterCommit(deps, start);
    return { ok: true, decision: state.decision_result! };
  } catch (error) {
    if (!(error instanceof DecidedBefore)) throw error;
    return answerDecidedBefore(deps, submission.organization_id, input.routing_id);
  }
}

/** The routing's workflow start, pending until the decision's statement commits: it carries the decision on. */
function pendingRouteStart(
  taskQueue: string,
  input: RouteTaskInput,
  decided: RoutingDecision['decided'],
  state: RoutingState,
): PendingStart {
  const { task } = input;
  return {
    workflow_id: input.routing_id,
    workflow_type: ROUTE_TASK_WORKFLOW_TYPE,
    task_queue: taskQueue,
    args: [{ ...input, decided: { decided, state } } satisfies RouteTaskInput],
    search_attributes: [
      { key: TaskTypeKey, value: task.task_type },
      { key: AgentIdKey, value: task.ai_agent_id },
      { key: ConfidenceKey, value: task.ai_confidence },
      { key: RoutingStatusKey, value: state.status },
      { key: EscalationLevelKey, value: state.escalation_level },
      { key: DecisionKey, value: decided.verdict.decision },
    ],
  };
}

/** The routing row, its provenance records and events, and the workflow's pending start, in one statement. */
async function recordDecision(
  deps: RoutingServiceDeps,
  input: RouteTaskInput & { organization_id: string },
  made: RoutingDecision,
): Promise<{ start: PendingStart; state: RoutingState }> {
  const { routing_id, task } = input;
  const at = made.decided.decided_at;
  const state: RoutingState = {
    routing_id,
    task_type: task.task_type,
    ai_agent_id: task.ai_agent_id,
    ai_confidence: task.ai_confidence,
    escalation_chain: [],
    ...made.changes,
    decision_result: { ...made.changes.decision_result },
    version: 1,
    created_at: at,
    updated_at: at,
  };
  const start = pendingRouteStart(deps.taskQueue, input, made.decided, state);
  const records = made.steps.map(({ step_id, entry, events }) => ({
    entry: { subject_id: routing_id, step_id, timestamp: at, ...entry },
    events,
    organization_id: input.organization_id,
  }));
  const anchor_transaction_id = transactionIdFor(routing_id, made.steps.at(-1)!.step_id);
  let recorded: { applied: boolean; block_number: number };
  try {
    recorded = await insertDecidedRouting(deps.db, {
      append: ledgerAppendCall(records),
      anchor_transaction_id,
      projection: {
        state,
        request_id: input.request_id,
        task,
        requested_by: input.requested_by,
        organization_id: input.organization_id,
      },
      open: openAssignmentOf(state),
      start,
    });
  } catch (error) {
    throw refusedWrite(error);
  }
  if (!recorded.applied) throw new DecidedBefore(routing_id);
  // The statement put this anchor into the row and the pending start; the start made now (its args hold this
  // same state) and the answer carry it too.
  const ledger_anchor = { transaction_id: anchor_transaction_id, block_number: recorded.block_number };
  state.decision_result!.provenance = { ...state.decision_result!.provenance, ledger_anchor };
  return { start, state };
}

/** A retry of a request whose routing exists: its recorded decision, its workflow started if the first call could not. */
async function answerDecidedBefore(
  deps: RoutingServiceDeps,
  organizationId: string,
  routingId: string,
): Promise<DecideOutcome> {
  const row = await findRoutingById(deps.db, organizationId, routingId);
  if (!row?.decision_result) throw new Error(`Routing ${routingId} exists without a decision`);
  await startIfPending(deps, routingId);
  return { ok: true, decision: row.decision_result };
}
