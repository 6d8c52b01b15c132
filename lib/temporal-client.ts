import { WorkflowUpdateFailedError, type Client, type WithStartWorkflowOperation } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { UpdateDefinition, Workflow } from '@temporalio/common';

/** The failure an Update's validator or handler rejected the request with, when it did so on purpose. */
export function updateRejection(error: unknown): { type: string; message: string } | undefined {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type) {
    return { type: error.cause.type, message: error.cause.message };
  }
  return undefined;
}

/** The workflow has closed (it takes no more Updates) or never existed. */
export function isClosedOrMissing(error: unknown): boolean {
  return error instanceof WorkflowNotFoundError || (error instanceof Error && /workflow execution already completed/i.test(error.message));
}

/**
 * Starts a workflow and waits for its first Update's answer (Update-with-Start, conflict policy USE_EXISTING).
 * When a workflow of that id has already closed (a retry long after the first call), the answer is read
 * from its record instead, never produced twice.
 */
export async function startWithUpdate<T, W extends Workflow>(
  temporal: Client,
  update: UpdateDefinition<T>,
  start: WithStartWorkflowOperation<W>,
  recorded: () => Promise<T | undefined>,
): Promise<T> {
  try {
    return await temporal.workflow.executeUpdateWithStart(update, { startWorkflowOperation: start });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const record = await recorded();
    if (record === undefined) throw new Error(`Workflow ${start.options.workflowId} has closed but left no record`);
    return record;
  }
}
