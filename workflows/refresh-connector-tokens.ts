import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { createConnectorRefreshActivities } from '../activities/connector-refresh';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';
import type { RefreshConnectorTokensInput } from '../contracts/refresh-connector-tokens';

/** A pass refreshes each due installation in turn (a provider call each): it may take minutes, and heartbeats. */
const { refreshDueTokens } = proxyActivities<ReturnType<typeof createConnectorRefreshActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: DATABASE_ACTIVITY_RETRY,
});

/**
 * Refreshes provider tokens ahead of their expiry, in the background: every interval, each active
 * installation whose access token expires within the refresh-ahead window is refreshed through the same
 * single-flight path a connector's call takes (the token row locked, re-read, the rotated refresh token
 * stored before use), so a refresh here never races one in a call. A refused grant moves the installation
 * to needs_reauth with its event and reconnect link. Continues as new every passes_per_run passes.
 */
export async function refreshConnectorTokensWorkflow(input: RefreshConnectorTokensInput): Promise<never> {
  for (let pass = 0; pass < input.passes_per_run; pass += 1) {
    await refreshDueTokens(input.refresh_ahead_seconds);
    await sleep(input.interval_seconds * 1000);
  }
  return continueAsNew<typeof refreshConnectorTokensWorkflow>(input);
}
