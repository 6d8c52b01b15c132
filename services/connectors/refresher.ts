import type { Client } from '@temporalio/client';
import {
  REFRESH_CONNECTOR_TOKENS_WORKFLOW,
  tokenRefresherWorkflowId,
  type RefreshConnectorTokensInput,
  type RefreshConnectorTokensWorkflow,
} from '../../contracts/refresh-connector-tokens';

/** Starts the deployment's background token refresher unless it runs already: every worker entry calls it at boot. */
export async function startTokenRefresher(
  client: Client,
  options: { taskQueue: string; input: RefreshConnectorTokensInput },
): Promise<string> {
  const workflowId = tokenRefresherWorkflowId(options.taskQueue);
  await client.workflow.start<RefreshConnectorTokensWorkflow>(REFRESH_CONNECTOR_TOKENS_WORKFLOW, {
    workflowId,
    taskQueue: options.taskQueue,
    args: [options.input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  return workflowId;
}
