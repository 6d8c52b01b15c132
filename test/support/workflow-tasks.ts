import { temporal } from '@temporalio/proto';
import { eventually } from './eventually';
import type { Stack } from './stack';

const { EVENT_TYPE_WORKFLOW_TASK_COMPLETED } = temporal.api.enums.v1.EventType;

/**
 * Resolves once the workflow has completed its first workflow task, so that a test that then stops its worker
 * stops one that waits, as the test means: a worker stopped while it holds that task leaves it to the task's
 * 10 s timeout before another worker may run it.
 */
export async function firstTaskCompleted(stack: Stack, workflowId: string): Promise<void> {
  const handle = await stack.startedWorkflow(workflowId);
  await eventually(
    async () => (await handle.fetchHistory()).events ?? [],
    (events) => events.some((event) => event.eventType === EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
  );
}
