import { registerServiceAccountRoutes } from './auth/service-accounts';
import { registerPersonalAccessTokenRoutes } from './auth/personal-access-tokens';
import { registerTokenRoutes } from './auth/token';
import { registerHealthRoutes } from './health';
import { registerLedgerRoutes } from './ledger';
import { registerAuditRoutes } from './orch/audit';
import { registerComplianceRoutes } from './orch/compliance';
import { registerPlatformProvenanceRoutes } from './platform/provenance';
import { registerAgentPerformanceRoutes } from './orch/agent-performance';
import { registerAgentReportRoutes } from './orch/agent-reports';
import { registerAgentRoutingRoutes } from './orch/agent-routing';
import { registerAgentRoutes } from './orch/agents';
import { registerBoundaryRoutes } from './orch/boundaries';
import { registerManualEscalationRoutes } from './orch/escalation-manual';
import { registerEscalationRuleRoutes } from './orch/escalation-rules';
import { registerRoutingHistoryRoutes } from './orch/routing-history';
import { registerSafetyRoutes } from './orch/safety';
import { registerProvenanceRoutes } from './orch/provenance';
import { registerReviewerRoutes } from './orch/reviewers';
import { registerRoutingRoutes } from './orch/routing';
import { registerPlatformRoutes } from './platform';
import { registerDelegationRoutes } from './platform/delegation';
import { registerWebhookDeliveryRoutes } from './orch/webhook-deliveries';
import { registerWebhookRoutes } from './orch/webhooks';
import { registerEventRoutes } from './platform/events';
import { registerInboxPage } from './platform/inbox-page';
import { registerInboxRoutes, type InboxRouteDeps } from './platform/inbox';
import { registerDecisionLinkRoutes } from './platform/decision-links';
import { registerNotificationPolicyRoutes } from './platform/notification-policy';
import { registerSlackActionRoutes } from './platform/slack-actions';
import { registerPasskeyPage } from './platform/passkey-page';
import { registerRecoveryGuardianRoutes } from './platform/recovery-guardians';
import { registerRecoveryRequestRoutes } from './platform/recovery-requests';
import { registerWebAuthnRoutes } from './platform/webauthn';
import { registerMarketplaceConnectorRoutes } from './platform/marketplace-connectors';
import { registerInstallationRoutes } from './platform/installations';
import { registerInstallationUsageRoutes } from './platform/installation-usage';
import { registerRatingRoutes } from './platform/ratings';
import { registerOAuthCallbackRoute } from './platform/oauth-callback';
import { registerOrganizationConnectorRoutes } from './platform/organization-connectors';
import { registerDeploymentRoutes } from './platform/deployment';
import { registerInstallationReconnectRoute } from './platform/installation-reconnect';
import { createOAuthClient } from '../services/connectors/oauth-client';
import { registerEmployeeRoutes } from './platform/employees';
import { registerOrganizationRoutes } from './platform/organizations';
import { registerOrganizationLinkRoutes } from './platform/organization-links';
import { registerAttestationRoutes } from './platform/attestations';
import { registerConsentRoutes } from './platform/consents';
import { registerPassportDelegationRoutes } from './platform/passport-delegations';
import type { PeopleDeps } from '../services/people/settings';
import type { DelegationDeps } from '../services/identity/delegations/context';
import type { AppDeps } from './app-deps';
import type { ApiBuilder } from './route';

/** Every router, in the order the OpenAPI document lists their operations. */
export function registerRoutes(api: ApiBuilder, deps: AppDeps, delegation: DelegationDeps): void {
  registerAccessRoutes(api, deps);
  registerOrchestrationRoutes(api, deps);
  registerPlatformSideRoutes(api, deps, delegation);
}

/** Health, tokens, service accounts and personal access tokens. */
function registerAccessRoutes(api: ApiBuilder, deps: AppDeps): void {
  const { settings } = deps;
  registerHealthRoutes(api, deps);
  registerTokenRoutes(api, {
    db: deps.db,
    keyRing: deps.keyRing,
    settings: settings.token,
    accessTokenTtlSeconds: settings.accessTokenTtlSeconds,
  });
  registerServiceAccountRoutes(api, deps);
  registerPersonalAccessTokenRoutes(api, deps);
}

/** /v1/orch, the ledger, audit, compliance and the provenance beside them. */
function registerOrchestrationRoutes(api: ApiBuilder, deps: AppDeps): void {
  const { settings } = deps;
  // history before {routing_id}, so that Express does not read "history" as an id.
  const routing = {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    escalationTimeoutsSeconds: settings.escalationTimeoutsSeconds,
    autonomousEscalationWindowSeconds: settings.autonomousEscalationWindowSeconds,
    reviewWindowSeconds: settings.reviewWindowSeconds,
  };
  registerRoutingHistoryRoutes(api, deps);
  registerRoutingRoutes(api, { ...routing, logger: deps.logger, decisions: deps.decisions });
  registerAgentRoutingRoutes(api, { ...routing, logger: deps.logger, decisions: deps.decisions });
  registerAgentReportRoutes(api, routing);
  registerBoundaryRoutes(api, deps);
  registerManualEscalationRoutes(api, routing);
  registerEscalationRuleRoutes(api, deps);
  registerSafetyRoutes(api, deps);
  registerAgentRoutes(api, deps);
  registerAgentPerformanceRoutes(api, deps);
  registerProvenanceRoutes(api, { db: deps.db, blockMaxAgeMs: settings.ledgerBlockMaxAgeMs });
  registerLedgerRoutes(api, { db: deps.db, blockMaxAgeMs: settings.ledgerBlockMaxAgeMs });
  registerAuditRoutes(api, deps);
  registerPlatformProvenanceRoutes(api, deps);
  registerComplianceRoutes(api, {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    publicBaseUrl: settings.publicBaseUrl,
  });
  registerReviewerRoutes(api, deps);
}

/** /v1 platform routes, delegation, webhooks, events and passkeys. */
function registerPlatformSideRoutes(api: ApiBuilder, deps: AppDeps, delegation: DelegationDeps): void {
  const { settings } = deps;
  const people = peopleDeps(deps);
  // Organizations first, where the OpenAPI document has always listed them.
  registerOrganizationRoutes(api, people);
  registerPlatformRoutes(api, deps);
  registerDelegationRoutes(api, delegation);
  registerWebhookRoutes(api, { db: deps.db, settings: settings.webhooks });
  registerWebhookDeliveryRoutes(api, {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    retrySchedule: settings.webhooks.retrySchedule,
  });
  registerEventRoutes(api, deps);
  registerWebAuthnRoutes(api, people.webauthn, people);
  registerPeopleRoutes(api, people, delegation);
  registerPasskeyPage(api);
  registerInboxPage(api);
  registerInboxRoutes(api, inboxDeps(deps));
  const recovery = { db: deps.db, mailer: deps.mailer, sms: deps.sms, settings: settings.recovery };
  registerRecoveryGuardianRoutes(api, recovery);
  registerRecoveryRequestRoutes(api, {
    ...recovery,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    webauthn: settings.webauthn,
  });
  registerMarketplaceRoutes(api, deps);
  registerDecisionRoutes(api, deps);
  registerDeploymentRoutes(api, {
    compliance: {
      db: deps.db,
      keyRing: deps.keyRing,
      settings: {
        issuer: settings.token.issuer,
        publicBaseUrl: settings.publicBaseUrl,
        ledgerSealingLagAlertSeconds: settings.platform.ledgerSealingLagAlertSeconds,
      },
    },
    health: { db: deps.db, temporal: deps.temporal, taskQueue: settings.taskQueue, settings: settings.platform },
    deploymentMode: settings.deploymentMode,
  });
}

/** One-click decisions: the e-mailed links' page and form, Slack's button callback, and the policy they follow. */
function registerDecisionRoutes(api: ApiBuilder, deps: AppDeps): void {
  const { settings } = deps;
  const decide = {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    settings: settings.platform,
    logger: deps.logger,
    escalationTimeoutsSeconds: settings.escalationTimeoutsSeconds,
    autonomousEscalationWindowSeconds: settings.autonomousEscalationWindowSeconds,
    reviewWindowSeconds: settings.reviewWindowSeconds,
  };
  registerDecisionLinkRoutes(api, { ...decide, publicBaseUrl: settings.notifications.publicBaseUrl });
  registerSlackActionRoutes(api, { ...decide, slackSigningSecret: settings.notifications.slackSigningSecret });
  registerNotificationPolicyRoutes(api, { db: deps.db, secretKeys: settings.notifications.secretKeys });
}

/** How often a live inbox reads the queue, and how long one stream lasts before the browser reconnects. */
const LIVE_INBOX = { pollMs: 1000, maxStreamMs: 5 * 60_000 };

function inboxDeps(deps: AppDeps): InboxRouteDeps {
  const { settings } = deps;
  const routing = {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: settings.taskQueue,
    escalationTimeoutsSeconds: settings.escalationTimeoutsSeconds,
    autonomousEscalationWindowSeconds: settings.autonomousEscalationWindowSeconds,
    reviewWindowSeconds: settings.reviewWindowSeconds,
  };
  return {
    inbox: { db: deps.db, escalationTimeoutsSeconds: settings.escalationTimeoutsSeconds },
    approvals: { db: deps.db, temporal: deps.temporal, taskQueue: settings.taskQueue, settings: settings.platform },
    routing: { ...routing, logger: deps.logger },
    signatures: { db: deps.db, settings: { token: settings.token, webauthn: settings.webauthn } },
    live: LIVE_INBOX,
  };
}

/** The connector catalog, installations and the OAuth callback. */
function registerMarketplaceRoutes(api: ApiBuilder, deps: AppDeps): void {
  const connectors = {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: deps.settings.taskQueue,
    settings: deps.settings.connectors,
  };
  registerMarketplaceConnectorRoutes(api, connectors);
  registerInstallationRoutes(api, { ...connectors, oauth: createOAuthClient(deps.settings.connectors) });
  registerRatingRoutes(api, connectors);
  registerInstallationUsageRoutes(api, connectors);
  registerOAuthCallbackRoute(api, connectors);
  registerInstallationReconnectRoute(api, connectors);
  registerOrganizationConnectorRoutes(api, deps);
}

/** What the people services are built from: the passkey ceremony (for onboarding links) and the mail. */
export function peopleDeps(deps: AppDeps): PeopleDeps {
  const { settings } = deps;
  return {
    db: deps.db,
    mailer: deps.mailer,
    logger: deps.logger,
    webauthn: {
      db: deps.db,
      keyRing: deps.keyRing,
      logger: deps.logger,
      revocations: deps.revocations,
      settings: { token: settings.token, webauthn: settings.webauthn },
    },
    settings: { passports: settings.passports, people: settings.people },
  };
}

/** Employees, organization links, attestations, consents and the delegation of a Passport's permissions. */
function registerPeopleRoutes(api: ApiBuilder, people: PeopleDeps, delegation: DelegationDeps): void {
  registerEmployeeRoutes(api, people);
  registerOrganizationLinkRoutes(api, people);
  registerAttestationRoutes(api, { db: people.db, settings: people.settings.passports });
  registerConsentRoutes(api, people);
  registerPassportDelegationRoutes(api, delegation);
}
