import { ActivityFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createConnectorActivities } from '../activities/connectors';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';
import { authorizationSignal, type InstallConnectorInput, type InstallOutcome } from '../contracts/install-connector';
import type { AuthorizationResult } from '../domain/marketplace/oauth-callback';

const { failInstallAttempt } = proxyActivities<ReturnType<typeof createConnectorActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

/** The exchange calls the provider: retried for about two minutes while it does not answer, then the attempt fails. */
const { completeAuthorization } = proxyActivities<ReturnType<typeof createConnectorActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 8 },
});

/**
 * One install attempt waiting for the provider's consent. The callback claims the attempt's state in
 * Postgres (once) and signals the result; the workflow exchanges the code, or records the refusal. Its
 * durable timer ends the attempt as expired at expires_at, even if no worker was up at that instant; a
 * signal that came before the deadline is carried on after it. Every ending is a conditional write on the
 * attempt still pending, so an attempt superseded by a re-install changes nothing.
 */
export async function installConnectorWorkflow(input: InstallConnectorInput): Promise<InstallOutcome> {
  const ref = { installation_id: input.installation_id, attempt: input.attempt };
  let result: AuthorizationResult | undefined;
  setHandler(authorizationSignal, (given) => {
    result ??= given;
  });

  const deadline = Date.parse(input.expires_at);
  await condition(() => result !== undefined, Math.max(1, deadline - Date.now()));
  if (!result) return failInstallAttempt(ref, 'expired');
  try {
    return await completeAuthorization(ref, result);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return failInstallAttempt(ref, 'exchange_failed');
  }
}
