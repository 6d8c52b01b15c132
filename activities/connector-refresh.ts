import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { RefreshPass } from '../contracts/refresh-connector-tokens';
import { createOAuthClient } from '../services/connectors/oauth-client';
import { refreshDueInstallations } from '../services/connectors/refresh-ahead';
import type { ConnectorSettings } from '../services/connectors/settings';

/** The background refresher's one step: a pass over the installations whose tokens are due. */
export function createConnectorRefreshActivities(deps: { db: Knex; connectors: ConnectorSettings }) {
  const connectorDeps = { db: deps.db, settings: deps.connectors, oauth: createOAuthClient(deps.connectors) };
  return {
    /** Refreshes each active installation whose token expires within the window, heartbeating between them. */
    async refreshDueTokens(aheadSeconds: number): Promise<RefreshPass> {
      return refreshDueInstallations(connectorDeps, aheadSeconds, () => Context.current().heartbeat());
    },
  };
}
