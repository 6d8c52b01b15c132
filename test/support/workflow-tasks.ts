import { temporal } from '@temporalio/proto';
import { eventually } from './eventually';
import type { Stack } from './stack';

const { EVENT_TYPE_WORKFLOW_TASK_COMPLETED, EVENT_TYPE_TIMER_STARTED } = temporal.api.enums.v1.EventType;

// A worker stopped while it holds a workflow task leaves that task to its 10 s timeout before another worker may
// run it: a test that stops its worker to show what happens to a waiting workflow first lets it be waiting.

/** Resolves once the workflow has completed its first workflow task. */
export async function firstTaskCompleted(stack: Stack, workflowId: string): Promise<void> {
  const handle = await stack.startedWorkflow(workflowId);
  await eventually(
    async () => (await handle.fetchHistory()).events ?? [],
    (events) => events.some((event) => event.eventType === EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
  );
}

/** Resolves once the workflow waits on a timer or a condition: its last workflow task done, nothing else under way. */
export async function workflowWaiting(stack: Stack, workflowId: string): Promise<void> {
  const handle = await stack.startedWorkflow(workflowId);
  await eventually(
    async () => (await handle.fetchHistory()).events?.at(-1)?.eventType,
    (last) => last === EVENT_TYPE_WORKFLOW_TASK_COMPLETED || last === EVENT_TYPE_TIMER_STARTED,
  );
}
