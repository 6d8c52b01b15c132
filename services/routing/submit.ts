import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { findRoutingById } from '../../db/routings';
import { startWithUpdate } from '../../lib/temporal-client';
import { throwStorageRefusal } from '../platform/refusals';
import {
  AgentIdKey,
  ConfidenceKey,
  decideUpdate,
  ROUTE_TASK_WORKFLOW_TYPE,
  TaskTypeKey,
  type DecideOutcome,
  type RouteTaskInput,
  type RouteTaskWorkflow,
} from '../../contracts/route-task';

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
export type SubmitRoutingInput = Pick<RouteTaskInput, 'routing_id' | 'request_id' | 'requested_by' | 'task'> & { organization_id: string };

/**
 * Starts the routing workflow (workflow id = routing id) and waits for its decision with
 * Update-with-Start. Every entry that routes a task (POST /routing, the agent operations, platform tasks)
 * goes through here, so they all get the same decision logic, idempotency and search attributes.
 */
export async function submitRouting(deps: RoutingServiceDeps, submission: SubmitRoutingInput): Promise<DecideOutcome> {
  const { routing_id, task } = submission;
  const input: RouteTaskInput = {
    ...submission,
    escalation_timeouts_seconds: deps.escalationTimeoutsSeconds,
    autonomous_escalation_window_seconds: deps.autonomousEscalationWindowSeconds,
    review_window_seconds: deps.reviewWindowSeconds,
  };
  const start = new WithStartWorkflowOperation<RouteTaskWorkflow>(ROUTE_TASK_WORKFLOW_TYPE, {
    workflowId: routing_id,
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    // A routing that already finished is answered from its record, never decided twice.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: TaskTypeKey, value: task.task_type },
      { key: AgentIdKey, value: task.ai_agent_id },
      { key: ConfidenceKey, value: task.ai_confidence },
    ],
  });
  const started = await startWithUpdate<DecideOutcome, RouteTaskWorkflow, never>(
    deps.temporal,
    decideUpdate,
    start,
    async () => {
      const row = await findRoutingById(deps.db, submission.organization_id, routing_id);
      return row?.decision_result ? { ok: true as const, decision: row.decision_result } : undefined;
    },
    throwStorageRefusal,
  );
  return started.value;
}
