import type { Knex } from 'knex';
import type { InstallOutcome } from '../contracts/install-connector';
import type { AuthorizationResult } from '../domain/marketplace/oauth-callback';
import { completeAuthorization, failAttempt, type AttemptRef } from '../services/connectors/authorization';
import { createOAuthClient } from '../services/connectors/oauth-client';
import type { ConnectorSettings } from '../services/connectors/settings';

/** The install workflow's steps: the code exchange (a provider call, retried while it does not answer) and the endings. */
export function createConnectorActivities(deps: { db: Knex; connectors: ConnectorSettings }) {
  const connectorDeps = { db: deps.db, settings: deps.connectors, oauth: createOAuthClient(deps.connectors) };
  return {
    /** Exchanges the code and makes the attempt active, or records why it failed; a provider that does not answer is retried. */
    async completeAuthorization(ref: AttemptRef, result: AuthorizationResult): Promise<InstallOutcome> {
      return completeAuthorization(connectorDeps, ref, result);
    },
    /** The attempt's URL expired, or its exchange could not be done within its retries. */
    async failInstallAttempt(ref: AttemptRef, reason: 'expired' | 'exchange_failed'): Promise<InstallOutcome> {
      return failAttempt(connectorDeps, ref, reason);
    },
  };
}
