import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { Mailer } from '../lib/mail/transport';
import type { SmsSender } from '../lib/sms/sender';
import type { WorkerSettings } from './settings';
import { createApprovalActivities } from './approvals';
import { createAssetActivities } from './assets';
import { createComplianceActivities } from './compliance';
import { createConnectorActivities } from './connectors';
import { createConnectorRefreshActivities } from './connector-refresh';
import { createDagActivities } from './dags';
import { createExecutionActivities } from './executions';
import { withInvalidDataFailures } from './failures';
import { createLedgerActivities } from './ledger';
import { createRecoveryActivities } from './recovery';
import { createNotificationActivities } from './notifications';
import { createRoutingActivities } from './routing';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Knex;
  settings: WorkerSettings;
  logger: Logger;
  /** For activities that start workflows (the outbox dispatcher starts deliveries). */
  temporal: Client;
  /** The owner's and guardians' notifications and recovery codes (SMTP_URL). */
  mailer: Mailer;
  /** Texts to sms guardians and the owner's phone (SMS_*). */
  sms: SmsSender;
}

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLedgerActivities(deps),
    ...withInvalidDataFailures(createRoutingActivities(deps)),
    ...createComplianceActivities(deps),
    ...createApprovalActivities(deps),
    ...createExecutionActivities(deps),
    ...createDagActivities(deps),
    ...createWebhookActivities(deps),
    ...createRecoveryActivities({ db: deps.db, mailer: deps.mailer, sms: deps.sms, recovery: deps.settings.recovery }),
    ...createConnectorActivities({ db: deps.db, connectors: deps.settings.connectors }),
    ...createConnectorRefreshActivities({ db: deps.db, connectors: deps.settings.connectors }),
    ...createAssetActivities({ db: deps.db }),
    ...withInvalidDataFailures(createNotificationActivities(deps)),
  };
}
