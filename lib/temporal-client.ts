import {
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type Client,
  type WithStartWorkflowOperation,
} from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { UpdateDefinition, Workflow } from '@temporalio/common';

/**
 * The failure an Update's validator or handler rejected the request with, when it did so on purpose; given
 * `types`, only a failure of one of them (any other rejection is unexpected to the caller).
 */
export function updateRejection<T extends string = string>(
  error: unknown,
  types?: readonly T[],
): { type: T; message: string } | undefined {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type) {
    const { type, message } = error.cause;
    if (!types || (types as readonly string[]).includes(type)) return { type: type as T, message };
  }
  return undefined;
}

/** The workflow has closed (it takes no more Updates) or never existed. */
export function isClosedOrMissing(error: unknown): boolean {
  return (
    error instanceof WorkflowNotFoundError ||
    (error instanceof Error && /workflow execution already completed/i.test(error.message))
  );
}

/** Why a closed workflow failed, when it failed with a typed ApplicationFailure. */
async function closedFailure(
  temporal: Client,
  workflowId: string,
): Promise<{ type: string; message: string } | undefined> {
  try {
    await temporal.workflow.getHandle(workflowId).result();
    return undefined;
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure && error.cause.type)
      return { type: error.cause.type, message: error.cause.message };
    throw error;
  }
}

/**
 * Starts a workflow and waits for its first Update's answer (Update-with-Start, conflict policy USE_EXISTING).
 * When a workflow of that id has already closed (a retry long after the first call), the answer is read
 * from its record instead, never produced twice. A typed failure that `refusalOf` recognizes (the Update's
 * rejection, or the closed workflow's failure) is the outcome instead of an error.
 */
export async function startWithUpdate<T, W extends Workflow, R>(
  temporal: Client,
  update: UpdateDefinition<T>,
  start: WithStartWorkflowOperation<W>,
  recorded: () => Promise<T | undefined>,
  refusalOf: (failure: { type: string; message: string } | undefined) => R | undefined,
): Promise<{ ok: true; value: T } | R> {
  try {
    return {
      ok: true,
      value: await temporal.workflow.executeUpdateWithStart(update, { startWorkflowOperation: start }),
    };
  } catch (error) {
    const refused = refusalOf(updateRejection(error));
    if (refused !== undefined) return refused;
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const record = await recorded();
    if (record !== undefined) return { ok: true, value: record };
    const failed = refusalOf(await closedFailure(temporal, start.options.workflowId));
    if (failed !== undefined) return failed;
    throw new Error(`Workflow ${start.options.workflowId} has closed but left no record`);
  }
}
