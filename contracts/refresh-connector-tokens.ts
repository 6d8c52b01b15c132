/** The background refresher's type name and signature, so that a client starts it without loading workflow code. */
export const REFRESH_CONNECTOR_TOKENS_WORKFLOW = 'refreshConnectorTokensWorkflow';

export interface RefreshConnectorTokensInput {
  /** How long the refresher waits between two passes over the installations whose tokens are due. */
  interval_seconds: number;
  /** A token expiring within this many seconds is refreshed in a pass (CONNECTOR_REFRESH_AHEAD_SECONDS). */
  refresh_ahead_seconds: number;
  /** Passes before the workflow continues as new, keeping its history short. */
  passes_per_run: number;
}

export interface RefreshPass {
  due: number;
  refreshed: number;
  needs_reauth: number;
  failed: number;
}

export type RefreshConnectorTokensWorkflow = (input: RefreshConnectorTokensInput) => Promise<never>;

/** One refresher per deployment: the task queue names the deployment (tests run many on one Temporal). */
export function tokenRefresherWorkflowId(taskQueue: string): string {
  return `connector-token-refresher-${taskQueue}`;
}
