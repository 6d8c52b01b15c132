import { setTimeout as sleep } from 'node:timers/promises';
import { claimOAuthState, findInstallationAttempt } from '../../db/installations';
import {
  authorizationSignal,
  INSTALL_CONNECTOR_WORKFLOW,
  installWorkflowId,
  type InstallConnectorWorkflow,
} from '../../contracts/install-connector';
import {
  callbackStep,
  settledPage,
  type CallbackQuery,
  type RefusedCallback,
  type SettledPage,
} from '../../domain/marketplace/oauth-callback';
import { stateHash } from './pkce';
import type { InstallDeps } from './settings';

/** How long the callback waits for the code exchange, so that the page can say how it ended. */
const SETTLE_WAIT_MS = 8000;
const SETTLE_POLL_MS = 150;

/**
 * A provider's redirect back: the state is claimed in Postgres exactly once (a forged, replayed, expired or
 * superseded one is refused and tells nothing), the result is signalled to the attempt's workflow (started
 * with it if its start was lost), and the page says how the installation ended, or that it is finishing
 * when the exchange takes longer (a worker down: the workflow carries the signal on when one is back).
 * Nobody is authenticated to this service by it.
 */
export async function receiveCallback(
  deps: InstallDeps,
  query: CallbackQuery & { state?: string | undefined },
): Promise<{ page: RefusedCallback | SettledPage }> {
  if (!query.state) return { page: 'unknown_state' };
  const claim = await claimOAuthState(deps.db, stateHash(query.state));
  const step = callbackStep(claim, query);
  if ('refused' in step || claim.kind !== 'claimed')
    return { page: 'refused' in step ? step.refused : 'unknown_state' };
  const { installation_id, attempt, expires_at } = claim;
  await deps.temporal.workflow.signalWithStart<InstallConnectorWorkflow, [typeof step.result]>(
    INSTALL_CONNECTOR_WORKFLOW,
    {
      workflowId: installWorkflowId(installation_id, attempt),
      taskQueue: deps.taskQueue,
      args: [{ installation_id, attempt, expires_at }],
      signal: authorizationSignal,
      signalArgs: [step.result],
    },
  );
  return { page: await settled(deps, installation_id, attempt) };
}

async function settled(deps: InstallDeps, installationId: string, attempt: number): Promise<SettledPage> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const current = await findInstallationAttempt(deps.db, installationId);
    const page = current?.attempt === attempt ? settledPage(current.status, current.status_reason) : 'failed';
    if (page !== 'finishing' || Date.now() >= deadline) return page;
    await sleep(SETTLE_POLL_MS);
  }
}
