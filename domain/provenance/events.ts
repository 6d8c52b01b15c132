/**
 * Every kind of event the service emits: each is put in the outbox in the same transaction as the
 * provenance record it belongs to, and delivered to the webhook subscriptions that ask for it. A new kind
 * is added here, with the operation that emits it, so that subscriptions, the OpenAPI document and the
 * emitters stay one list.
 */
export const EVENT_KINDS = {
  // Orchestration, first list of the spec.
  'routing.completed': 'A routing reached its outcome: decided for the agent alone, or resolved by its reviewer',
  'routing.escalated': 'A routing was assigned to a human',
  'safety.boundary_violation': 'A safety check or routing found a boundary violated',
  'audit.provenance_logged': 'An agent logged an action into a task’s provenance',
  // Orchestration, second list of the spec.
  'routing.decided': 'A routing decision was made',
  'escalation.triggered': 'A routing escalated to a human, or up the chain after a reviewer’s timeout',
  'safety.violation': 'A safety boundary was violated',
  'agent.registered': 'An AI agent was registered',
  'audit.critical': 'Something an auditor must see, e.g. an escalation chain exhausted with no resolution',
  // Platform: approvals, executions, workflow DAGs, tasks and the agents registry.
  'approval.requested':
    'An approval request was created and waits for a human (POST /v1/approvals, an agent call or a DAG node)',
  'approval.approved': 'An approval request was approved, possibly with modified parameters',
  'approval.rejected': 'An approval request was rejected (also the escalation queue’s reject and request_changes)',
  'approval.expired':
    'An approval request reached its expires_at without an answer; on_expiry and expiry_outcome say what that did (rejected, approved, escalated, held)',
  'approval.voted': 'An approver of a quorum request voted, and the request still waits for more votes',
  'approval.cancelled': 'An approval request was cancelled, by a caller or with the execution or workflow that asked',
  'execution.queued': 'An agent call was accepted and queued (it may first wait for its approval)',
  'execution.started': 'An execution started calling its agent',
  'execution.completed': 'An agent answered an execution with its result',
  'execution.failed': 'An execution failed: the agent refused it, or every attempt failed',
  'execution.cancelled': 'An execution was cancelled, or its approval was not given',
  'workflow.started': 'A workflow DAG started running',
  'workflow.completed': 'Every node of a workflow DAG completed or was skipped',
  'workflow.failed': 'A node of a workflow DAG failed, so the workflow failed',
  'task.submitted': 'A task was submitted for routing to the workforce',
  'platform_agent.registered': 'An agent was registered in the platform registry with its endpoint',
  'platform_agent.updated': 'A registered agent’s endpoint, capabilities, policy or status changed',
  'platform_agent.deployed': 'A version of an agent was deployed to an environment',
  // Identity: Passports and their keys.
  'passport.created': 'A Passport was created: an agent’s or the organization’s, or a person’s by the device ceremony',
  'passport.key_rotated': 'A Passport’s key was rotated: a new key signs, the old one verifies until its verify_until',
  'passport.key_revoked': 'A Passport’s key was revoked: drop it from any cached DID document or JWKS of the Passport',
  'passport.attested':
    'An organization attested a person of it: its membership when a link was completed (identity tier 1), or a skill (tier 2)',
  'passport.consent_recorded': 'A person recorded a consent in their Passport’s consent log',
  // Guardian recovery of a person's Passport.
  'recovery.guardian_invited': 'The owner of a Passport invited a recovery guardian',
  'recovery.guardian_accepted':
    'A guardian accepted, as their own signed-in Passport; they count once effective_at passes',
  'recovery.guardian_removed': 'The owner removed a recovery guardian; they stop counting at removal_effective_at',
  'recovery.requested': 'A recovery of a Passport was asked for: its guardians are asked to approve',
  'recovery.approved': 'A guardian approved a recovery request',
  'recovery.time_locked': 'A recovery request met its threshold: the time lock runs, and the owner may cancel',
  'recovery.awaiting_confirmation': 'A recovery’s time lock passed: the confirmation code was sent',
  'recovery.confirmation_refused': 'A wrong confirmation code was given for a recovery request',
  'recovery.completed': 'A recovery completed: the new credential replaced the old ones, which are revoked',
  'recovery.cancelled': 'The owner cancelled a recovery request',
  'recovery.expired':
    'A recovery request ended unfinished: its approval window or code expired, or the code attempts ran out',
  // Webhooks.
  'webhook.endpoint_disabled':
    'A webhook endpoint was disabled: it answered 410 Gone, or every attempt failed for days',
  // Orchestration layer (issue 3): emitted by the routing workflow when a triggered escalation rule's
  // notify_supervisor threshold is reached.
  'escalation.supervisor_notified':
    'An escalation rule asked for a supervisor to be told, and the routing’s escalation level reached its threshold',
  'routing.queued':
    'A routing needs a human but no available reviewer holds its capabilities: it waits unassigned in the queue, and supervisors should find someone',
  // Marketplace: connector installations.
  'installation.activated':
    'A connector installation became active: installed without OAuth, or its provider consent completed',
  'installation.authorization_failed':
    'An OAuth install ended without tokens: the person denied access, the authorization URL expired, or the code exchange failed',
  'installation.needs_reauth':
    'The provider refused an installation’s refresh token (invalid_grant): it needs the person’s consent again; the event carries the reconnect link',
  'installation.reconnected': 'An installation that needed re-authorization is active again with new tokens',
  'installation.uninstalled': 'A connector installation was uninstalled and its provider tokens revoked and deleted',
  // Marketplace: assets and their review.
  'asset.submitted': 'A marketplace asset was submitted; its review started',
  'asset.approved': 'A marketplace asset passed its review and was given a trust tier',
  'asset.rejected': 'A marketplace asset failed its review; the event carries the reasons',
} as const satisfies Record<string, string>;

export type EventKind = keyof typeof EVENT_KINDS;

export function isEventKind(value: string): value is EventKind {
  return Object.hasOwn(EVENT_KINDS, value);
}

/**
 * The emission audit: the operation that emits each kind, in the same transaction as its provenance
 * record (appendProvenance). Typed against EVENT_KINDS, so a kind added without naming its emitter does
 * not compile. The README's event table follows this list.
 */
export const EVENT_EMITTERS = {
  'routing.decided':
    'routeTaskWorkflow, decision step: every decided routing (POST /v1/orch/routing and every entry through submitRouting), also one that finds no qualified reviewer',
  'routing.escalated':
    'routeTaskWorkflow: a human was assigned at the decision (escalate_to_human, hybrid_collaboration), or an autonomous routing was later escalated (POST /v1/orch/escalate, /escalation/manual, /confidence below 0.70)',
  'escalation.triggered':
    'routeTaskWorkflow: a human was assigned at the decision; each move up the chain after a reviewer’s timeout (reason reviewer_timeout); each escalation asked by an agent (POST /v1/orch/escalate, /confidence below 0.70) or by hand (POST /v1/orch/escalation/manual)',
  'routing.completed':
    'routeTaskWorkflow: an autonomous decision (outcome ai_autonomous), or the assigned reviewer’s resolution (POST /v1/orch/routing/{routing_id}/resolve)',
  'audit.critical':
    'routeTaskWorkflow: the last level of the escalation chain timed out (reason escalation_chain_exhausted)',
  'safety.boundary_violation':
    'POST /v1/orch/safety/check (services/safety/check.ts) and routeTaskWorkflow, once per violated boundary; also agent operations whose action the agent’s constraints forbid',
  'safety.violation':
    'the same violations as safety.boundary_violation, emitted beside it (the second list of the spec)',
  'agent.registered':
    'POST /v1/orch/agents/register (services/agents/registry.ts), in the transaction that stores the agent',
  'audit.provenance_logged':
    'POST /v1/orch/provenance (services/routing/agent-operations.ts): an agent logged an action into its task’s provenance',
  'webhook.endpoint_disabled':
    'deliverWebhookWorkflow, recordDeliveryAttempt: an attempt answered 410 Gone, or every attempt failed for WEBHOOK_DISABLE_AFTER_FAILING_SECONDS',
  'approval.requested':
    'approvalWorkflow, requested step: POST /v1/approvals, an agent call whose policy needs approval, a DAG approval node, an organization health check',
  'approval.approved':
    'approvalWorkflow, responded step: POST /v1/approvals/{id}/respond or /v1/escalations/{id}/respond approving (also approved_with_modifications)',
  'approval.rejected': 'approvalWorkflow, responded step: the same respond operations rejecting (also request_changes)',
  'approval.expired':
    'approvalWorkflow, expired step (expired:<level> for each escalation): the expires_at timer fired with no answer',
  'approval.voted':
    'POST /v1/approvals/{id}/respond or /v1/escalations/{id}/respond on a quorum request, by a vote that leaves it pending (step vote:<passport>)',
  'approval.cancelled':
    'approvalWorkflow, cancelled step: POST /v1/approvals/{id}/cancel, or the execution or DAG that asked was cancelled',
  'execution.queued':
    'executeAgentWorkflow, queued step: POST /v1/agents/call, the legacy POST /v1/agents/{id}/call, a DAG agent node',
  'execution.started': 'executeAgentWorkflow, processing step: the first call to the agent begins',
  'execution.completed': 'executeAgentWorkflow, completed step: the agent answered 2xx',
  'execution.failed': 'executeAgentWorkflow, failed step: the agent refused the call (4xx) or every attempt failed',
  'execution.cancelled':
    'executeAgentWorkflow, cancelled step: POST /v1/executions/{id}/cancel, or its approval was rejected, expired or cancelled',
  'workflow.started': 'runDagWorkflow, started step: POST /v1/workflows',
  'workflow.completed': 'runDagWorkflow, finished step: every node completed or was skipped',
  'workflow.failed': 'runDagWorkflow, finished step: a node failed',
  'task.submitted': 'POST /v1/tasks (services/tasks.ts), in the transaction that records the task',
  'platform_agent.registered': 'POST /v1/agents (services/agents.ts), in the transaction that stores the agent',
  'platform_agent.updated': 'PATCH /v1/agents/{id} (services/agents.ts)',
  'platform_agent.deployed': 'POST /v1/agents/{id}/deployments (services/agents.ts)',
  'escalation.supervisor_notified':
    'routeTaskWorkflow: a triggered escalation rule’s notify_supervisor threshold was reached by the routing’s escalation level (once per routing and rule)',
  'passport.created':
    'POST /v1/passports and POST /v1/passports/devices (services/passports/), in the transaction that stores the Passport and its key',
  'passport.key_rotated':
    'POST /v1/passports/{id}/keys/rotate (services/identity/passports/passports.ts), in the transaction that retires the old keys',
  'passport.key_revoked':
    'POST /v1/passports/{id}/keys/{kid}/revoke (services/identity/passports/passports.ts), in the transaction that revokes the key',
  'passport.attested':
    'POST /v1/passports/{id}/organization-links/verify, a passkey enrollment from an employee’s onboarding link, POST /v1/passports/{id}/attestations (services/identity/attestations/issue.ts), in the transaction that stores the attestation',
  'passport.consent_recorded':
    'POST /v1/passports/{id}/consents (services/people/consents.ts), in the transaction that appends the consent',
  'recovery.guardian_invited':
    'POST /v1/passports/{passport_id}/recovery/guardians (services/recovery/guardians.ts), in the transaction that stores the guardian',
  'recovery.guardian_accepted':
    'POST /v1/passports/{passport_id}/recovery/guardians/{guardian_id}/accept (services/recovery/guardians.ts)',
  'recovery.guardian_removed':
    'DELETE /v1/passports/{passport_id}/recovery/guardians/{guardian_id} (services/recovery/guardians.ts)',
  'recovery.requested':
    'POST /v1/passports/{passport_id}/recovery/requests and POST /v1/recovery/webauthn/start (services/recovery/requests.ts), with the workflow’s pending start',
  'recovery.approved':
    'recoverPassportWorkflow: POST /v1/passports/{passport_id}/recovery/requests/{request_id}/approvals',
  'recovery.time_locked': 'recoverPassportWorkflow: the approvals reached the threshold',
  'recovery.awaiting_confirmation': 'recoverPassportWorkflow: the time lock passed and the code was sent',
  'recovery.confirmation_refused':
    'recoverPassportWorkflow: POST /v1/passports/{passport_id}/recovery/requests/{request_id}/execute with a wrong code',
  'recovery.completed':
    'recoverPassportWorkflow: POST /v1/passports/{passport_id}/recovery/requests/{request_id}/execute with the right code',
  'recovery.cancelled':
    'recoverPassportWorkflow: POST /v1/passports/{passport_id}/recovery/requests/{request_id}/cancel by the owner',
  'recovery.expired':
    'recoverPassportWorkflow: the approval window or the code’s lifetime passed, or the last code attempt was wrong',
  'routing.queued':
    'routeTaskWorkflow: a human decision, an escalation from the agent (POST /v1/orch/escalate, /confidence below 0.70, /escalation/manual) or a review found no qualified reviewer, so the routing entered the queue; again each time its escalation level rises there',
  'installation.activated':
    'POST /v1/marketplace/connectors/{id}/install without OAuth (services/connectors/install.ts); installConnectorWorkflow once the code exchange stored the tokens',
  'installation.authorization_failed':
    'installConnectorWorkflow: GET /v1/oauth/callback with error (access_denied), the expires_at timer, or a code exchange the provider refused',
  'installation.needs_reauth':
    'services/connectors/tokens.ts: a refresh the provider refused with invalid_grant, after re-reading the tokens under the installation’s lock',
  'installation.reconnected':
    'installConnectorWorkflow: the code exchange of a re-install of an installation that needed re-authorization',
  'installation.uninstalled': 'DELETE /v1/marketplace/connectors/{id}/install (services/connectors/installations.ts)',
  'asset.submitted': 'POST /v1/marketplace/assets (services/assets/assets.ts), with the review workflow’s start',
  'asset.approved': 'reviewAssetWorkflow: every check passed (services/assets/review.ts)',
  'asset.rejected': 'reviewAssetWorkflow: a check failed (services/assets/review.ts)',
} as const satisfies Record<EventKind, string>;
