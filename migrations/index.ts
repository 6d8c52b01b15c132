import type { Knex } from 'knex';
import * as foundation from './20261122000100_foundation';
import * as orchestration from './20261123000100_orchestration';
import * as ledger from './20261123000200_ledger';
import * as webhooks from './20261123000300_webhooks';
import * as platform from './20261123000400_platform';
import * as approvalFailures from './20261124000100_approval_failures';
import * as identity from './20261125000100_identity';
import * as tenancy from './20261125000200_tenancy';
import * as passports from './20261125000300_passports';
import * as webauthn from './20261125000400_webauthn';
import * as delegation from './20261125000500_delegation';
import * as reviewerPassports from './20261125000600_reviewer_passports';
import * as hotPaths from './20261125000700_hot_paths';
import * as reasoning from './20261125000900_reasoning';
import * as platformTenancy from './20261125001000_platform_tenancy';
import * as reasoningCallState from './20261127000100_reasoning_call_state';
import * as workflowSignals from './20261127000200_workflow_signals';
import * as credentialRevocation from './20261128000100_credential_revocation';
import * as revocationCursor from './20261128000200_revocation_cursor';
import * as keySealingAndSubjects from './20261128000300_key_sealing_and_subjects';
import * as tenantKeys from './20261128000400_tenant_keys';
import * as decisionNotify from './20261128000500_decision_notify';
import * as approvalQuorumExpiry from './20261129000600_approval_quorum_expiry';
import * as capabilities from './20261129000300_capabilities';
import * as recovery from './20261129000100_recovery';
import * as marketplaceConnectors from './20261129000400_marketplace_connectors';

/** Every migration in order; append new ones, never edit or reorder applied ones. */
export const MIGRATIONS: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000100_foundation', migration: foundation },
  { name: '20261123000100_orchestration', migration: orchestration },
  { name: '20261123000200_ledger', migration: ledger },
  { name: '20261123000300_webhooks', migration: webhooks },
  { name: '20261123000400_platform', migration: platform },
  { name: '20261124000100_approval_failures', migration: approvalFailures },
  { name: '20261125000100_identity', migration: identity },
  { name: '20261125000200_tenancy', migration: tenancy },
  { name: '20261125000300_passports', migration: passports },
  { name: '20261125000400_webauthn', migration: webauthn },
  { name: '20261125000500_delegation', migration: delegation },
  { name: '20261125000600_reviewer_passports', migration: reviewerPassports },
  { name: '20261125000700_hot_paths', migration: hotPaths },
  { name: '20261125000900_reasoning', migration: reasoning },
  { name: '20261125001000_platform_tenancy', migration: platformTenancy },
  { name: '20261127000100_reasoning_call_state', migration: reasoningCallState },
  { name: '20261127000200_workflow_signals', migration: workflowSignals },
  { name: '20261128000100_credential_revocation', migration: credentialRevocation },
  { name: '20261128000200_revocation_cursor', migration: revocationCursor },
  { name: '20261128000300_key_sealing_and_subjects', migration: keySealingAndSubjects },
  { name: '20261128000400_tenant_keys', migration: tenantKeys },
  { name: '20261128000500_decision_notify', migration: decisionNotify },
  { name: '20261129000600_approval_quorum_expiry', migration: approvalQuorumExpiry },
  { name: '20261129000300_capabilities', migration: capabilities },
  { name: '20261129000100_recovery', migration: recovery },
  { name: '20261129000400_marketplace_connectors', migration: marketplaceConnectors },
];
