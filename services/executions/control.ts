import { executionFromRow, findExecutionById } from '../../db/executions';
import { cancelExecutionUpdate, progressUpdate, type ExecutionState } from '../../contracts/execute-agent';
import { FAILURE_TYPES } from '../../contracts/failures';
import type { PlatformServiceDeps } from '../approvals/approvals';
import { isClosedOrMissing, updateRejection } from '../../lib/temporal-client';
import { storageRefusal, type StorageRefusal } from '../platform/refusals';

export type ExecutionUpdateOutcome =
  | { ok: true; execution: ExecutionState }
  | {
      ok: false;
      code: 'execution_not_found' | 'execution_not_cancellable' | 'execution_not_processing';
      detail: string;
    }
  | StorageRefusal;

/** Sends an Update to the execution's workflow; a closed workflow is answered from its record. */
async function updateExecution(
  deps: PlatformServiceDeps,
  executionId: string,
  closedCode: 'execution_not_cancellable' | 'execution_not_processing',
  send: () => Promise<ExecutionState>,
): Promise<ExecutionUpdateOutcome> {
  try {
    return { ok: true, execution: await send() };
  } catch (error) {
    const rejection = updateRejection(error);
    if (
      rejection?.type === FAILURE_TYPES.executionNotCancellable ||
      rejection?.type === FAILURE_TYPES.executionNotProcessing
    ) {
      return { ok: false, code: rejection.type, detail: rejection.message };
    }
    const refused = storageRefusal(rejection);
    if (refused) return refused;
    if (!isClosedOrMissing(error)) throw error;
    const row = await findExecutionById(deps.db, executionId);
    if (!row) return { ok: false, code: 'execution_not_found', detail: `No execution ${executionId}` };
    return { ok: false, code: closedCode, detail: `Execution ${executionId} is ${row.status}` };
  }
}

/** Cancels a queued or processing execution: whatever it waits for (its approval, the agent's answer) is stopped. */
export async function cancelExecution(
  deps: PlatformServiceDeps,
  organizationId: string,
  executionId: string,
  request: { cancelled_by: string; reason?: string | undefined; principal: string },
): Promise<ExecutionUpdateOutcome> {
  if (!(await findExecutionById(deps.db, executionId, organizationId)))
    return { ok: false, code: 'execution_not_found', detail: `No execution ${executionId}` };
  return updateExecution(deps, executionId, 'execution_not_cancellable', () =>
    deps.temporal.workflow.getHandle(executionId).executeUpdate(cancelExecutionUpdate, { args: [request] }),
  );
}

/** Progress from the agent (already authenticated by its progress token), delivered as an Update. */
export async function reportProgress(
  deps: PlatformServiceDeps,
  executionId: string,
  report: { attempt: number; progress_percent: number; progress_message?: string | undefined },
): Promise<ExecutionUpdateOutcome> {
  return updateExecution(deps, executionId, 'execution_not_processing', () =>
    deps.temporal.workflow.getHandle(executionId).executeUpdate(progressUpdate, { args: [report] }),
  );
}

export async function readExecution(
  deps: PlatformServiceDeps,
  organizationId: string,
  executionId: string,
): Promise<ExecutionState | undefined> {
  const row = await findExecutionById(deps.db, executionId, organizationId);
  return row && executionFromRow(row);
}
