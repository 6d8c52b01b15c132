/**
 * What a delegation token (or a signed-in person) may do: named capabilities, each with the risk of the
 * operations it opens and the older bearer-token scope that implies it. The operation → capability table
 * is api/capabilities.ts; this is the vocabulary and the rules of narrowing. Beside the capabilities, a
 * delegation may carry prompt grants (prompt:<action>:<key-pattern>, domain/prompts/scopes.ts).
 */
import { isPromptScope, type PromptAction } from '../prompts/scopes';

export const RISK_LEVELS = ['low', 'standard', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The scopes of access tokens, PATs and service accounts (services/identity/scopes.ts), which keep working. */
export type LegacyScope =
  | 'orch:read'
  | 'orch:write'
  | 'orch:admin'
  | 'audit:read'
  | 'platform:read'
  | 'platform:write'
  | 'platform:admin'
  | 'people:enroll'
  | 'orch:agent'
  | 'cloud:admin:global';

export interface CapabilityDefinition {
  description: string;
  /** A token whose risk_level is below this may not use the capability. */
  risk: RiskLevel;
  /** The scope whose holder is granted this capability: the scope that guarded its operations before capabilities. */
  implied_by: LegacyScope;
}

export const CAPABILITIES = {
  reasoning: {
    description: 'Call the reasoning endpoint and read the model registry',
    risk: 'low',
    implied_by: 'platform:write',
  },
  'models:read': {
    description: 'List and read the model registry and its statistics',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'models:manage': {
    description:
      'Register and change models, submit benchmarks (the registry is the deployment’s, shared by every organization)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  'agents:read': { description: 'List and read platform agents', risk: 'low', implied_by: 'platform:read' },
  'agents:invoke': {
    description: 'Call a platform agent (through /v1/agents/call or by id)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'agents:manage': {
    description: 'Register, update and deploy platform agents',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'approvals:read': {
    description: 'List and read approval requests and the escalation queue',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'approvals:request': {
    description: 'Ask for an approval (not cancel one: that is approvals:cancel)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'approvals:respond': {
    description: 'Approve or reject an approval request or an escalation, as the person (a human act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'approvals:cancel': {
    description: 'Cancel a pending approval request, as the person (a human act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'executions:read': { description: 'List and read executions', risk: 'low', implied_by: 'platform:read' },
  'executions:cancel': { description: 'Cancel an execution', risk: 'standard', implied_by: 'platform:write' },
  'callback_secrets:read': {
    description: 'List the callback signing secrets (never their values)',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'callback_secrets:manage': {
    description: 'Create or rotate a callback signing secret',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'workflows:read': {
    description: 'List and read workflow DAGs, their statistics and provenance',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'workflows:write': { description: 'Create a workflow DAG', risk: 'standard', implied_by: 'platform:write' },
  'tasks:read': { description: 'Read submitted tasks and their status', risk: 'low', implied_by: 'platform:read' },
  'tasks:submit': { description: 'Submit a task for routing', risk: 'standard', implied_by: 'platform:write' },
  'provenance:read': {
    description: 'Query provenance, events and attestations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'provenance:attest': { description: 'Attest a provenance record', risk: 'standard', implied_by: 'platform:write' },
  'health:read': { description: 'Read the platform status', risk: 'low', implied_by: 'platform:read' },
  'health:check': { description: 'Run an organization health check', risk: 'standard', implied_by: 'platform:write' },
  'health:organizations': {
    description: 'Read the health of every organization of the deployment (cloud mode, its operator)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  'organizations:read': { description: 'Read one’s own organization', risk: 'low', implied_by: 'platform:read' },
  'organizations:create': {
    description: 'Create organizations and see every one (deployment administration)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  'passports:read': {
    description: 'Read Passports of one’s organization, their JWKS and DID documents',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'passports:create': {
    description: 'Create agent Passports (never a person’s: that is people:enroll)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'passports:keys': {
    description: 'Rotate and revoke the keys of one’s organization’s Passports',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'people:enroll': {
    description:
      'Enroll a person: a device registration challenge or passkey registration options that mint a person’s Passport',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'recovery:guard': {
    description:
      'Guardian recovery as a person: name or remove one’s guardians, accept guardianship, approve a recovery, cancel a recovery of one’s own Passport (a session only)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'recovery:request': {
    description:
      'Ask for the guardian recovery of a person’s Passport and execute it with its confirmation code (a recovery desk’s power)',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'passports:link': {
    description: 'Link one’s own Passport to one’s organization by the e-mail code (the person’s own act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'passports:consent': {
    description: 'Record a consent in one’s own Passport’s consent log (the person’s own act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'people:attest': {
    description: 'Attest a skill of a person of the organization, signed by the organization’s key',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'org:employees:read': {
    description: 'List and read the organization’s employees (their e-mail addresses and roles)',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'org:employees:manage': {
    description: 'Invite employees: a linking code and an enrollment link by e-mail',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'org:connectors:read': {
    description: 'List and read the organization’s own connectors (their configuration)',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'org:connectors:manage': {
    description: 'Create the organization’s own connectors',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'delegation:read': {
    description: 'List and read one’s delegation tokens, delegations and revocations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'delegation:write': {
    description: 'Delegate to an agent, rotate and revoke delegation tokens and delegations',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'routing:read': {
    description: 'Read routings, their history, provenance and ledger proofs',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'routing:write': {
    description: 'Start a routing (no human act: resolving, escalating and feedback have their own capabilities)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:resolve': {
    description: 'Resolve a routing as a reviewer the person is (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:escalate': {
    description: 'Escalate a routing by hand, as the person (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:feedback': {
    description: 'Confirm, overturn or flag a completed routing’s outcome, as the person (a human act)',
    risk: 'standard',
    implied_by: 'orch:write',
  },
  'routing:assign': { description: 'Assign a queued routing to a reviewer', risk: 'high', implied_by: 'orch:admin' },
  'orch_agents:read': {
    description: 'List and read registered orchestration agents and their performance',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'orch_agents:manage': {
    description: 'Register and update orchestration agents, rotate their keys',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'escalation_rules:read': {
    description: 'List, read and dry-run escalation rules',
    risk: 'low',
    implied_by: 'orch:read',
  },
  'escalation_rules:manage': {
    description: 'Create, change, enable, disable and delete escalation rules',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'reviewers:read': { description: 'List reviewers', risk: 'low', implied_by: 'orch:read' },
  'reviewers:manage': { description: 'Register or change a reviewer', risk: 'high', implied_by: 'orch:admin' },
  'safety:read': { description: 'Read the safety configuration', risk: 'low', implied_by: 'orch:read' },
  'safety:manage': {
    description: 'Change the safety configuration of a domain',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'webhooks:manage': {
    description: 'Manage webhook subscriptions and their deliveries',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'service_accounts:manage': {
    description: 'Create, list and revoke service accounts',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'personal_access_tokens:manage': {
    description: 'Create, list, read and revoke personal access tokens',
    risk: 'high',
    implied_by: 'orch:admin',
  },
  'compliance:reports': { description: 'Create and read compliance reports', risk: 'high', implied_by: 'orch:admin' },
  'audit_log:read': {
    description: 'Read the audit log and export the ledger',
    risk: 'standard',
    implied_by: 'audit:read',
  },
  'capabilities:read': {
    description:
      'List and read capability definitions, grants, proofs, ontologies, courses; match; verify proofs and skills',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'capabilities:prove': { description: 'Submit a skill proof', risk: 'standard', implied_by: 'platform:write' },
  'capabilities:manage': {
    description: 'Define, import and promote capabilities; create courses and record completions',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'capabilities:grant': {
    description: 'Grant and revoke capabilities, issue proofs of grants',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'notifications:manage': {
    description: 'Read and set the organization’s notification policy (Slack webhook, passkey signature above a risk)',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'connectors:read': {
    description: 'List and read the organization’s connector installations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'connectors:install': {
    description: 'Install, update and uninstall connectors for the organization',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'connectors:invoke': {
    description: 'Record an invocation of one of the organization’s active connector installations',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'assets:read': {
    description: 'List and read the marketplace assets the caller may see, with their review',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'assets:submit': {
    description: 'Submit a marketplace asset for review',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'connectors:rate': {
    description: 'Rate a connector through an active installation of the organization',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'connectors:publish': {
    description: 'Register or change a connector of the deployment’s catalog (shared by every organization)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
  agent_operations: {
    description: 'The operations of a registered agent’s own API key (/route, /confidence, …); never delegated',
    risk: 'standard',
    implied_by: 'orch:agent',
  },
} as const satisfies Record<string, CapabilityDefinition>;

export type Capability = keyof typeof CAPABILITIES;
export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as Capability[];

export function isCapability(value: string): value is Capability {
  return Object.hasOwn(CAPABILITIES, value);
}

/**
 * The capability each human act takes under a delegation token, one act each: holding one never lets an agent do
 * another act, nor start what it answers (routing:write starts routings and resolves none; approvals:request asks
 * and cancels none). A signed-in person holds all of them.
 */
export const HUMAN_ACT_CAPABILITIES = {
  respond_approval: 'approvals:respond',
  respond_escalation: 'approvals:respond',
  cancel_approval: 'approvals:cancel',
  resolve_routing: 'routing:resolve',
  escalate_routing: 'routing:escalate',
  routing_feedback: 'routing:feedback',
} as const satisfies Record<string, Capability>;

export type HumanAct = keyof typeof HUMAN_ACT_CAPABILITIES;

/** The human-act capabilities, each once, as API descriptions list them. */
export const HUMAN_ACT_CAPABILITY_NAMES: readonly Capability[] = [...new Set(Object.values(HUMAN_ACT_CAPABILITIES))];

/** What a delegation token asks for when the exchange names nothing (spec: reasoning plus agents read and invoke). */
export const DEFAULT_DELEGATION_CAPABILITIES: readonly Capability[] = ['reasoning', 'agents:read', 'agents:invoke'];

/**
 * What a signed-in person holds, and so the most a token exchanged from a session may carry: everything
 * except configuring the deployment (high-risk administration, which stays with admin scopes until
 * organizations give people roles) and the agent-key operations.
 */
export const SIGNED_IN_PERSON_CAPABILITIES: readonly Capability[] = CAPABILITY_NAMES.filter(
  (name) => CAPABILITIES[name].risk !== 'high' && CAPABILITIES[name].implied_by !== 'orch:agent',
);

/**
 * What a signed-in administrator of their organization (an active employee with the administrator role) holds
 * beside: the high-risk administration of the organization, never the deployment's.
 */
export const ORGANIZATION_ADMINISTRATION_CAPABILITIES: readonly Capability[] = CAPABILITY_NAMES.filter(
  (name) => CAPABILITIES[name].risk === 'high' && CAPABILITIES[name].implied_by !== 'cloud:admin:global',
);

/**
 * The prompt grants a signed-in person holds: every action on every prompt of their organization (none is
 * deployment administration), and so the most a token exchanged from a session may carry.
 */
export const SIGNED_IN_PERSON_PROMPT_GRANTS: readonly string[] = ['prompt:*:*'];

/** What a signed-in person holds: capabilities and prompt grants. */
export const SIGNED_IN_PERSON_GRANTS: readonly string[] = [
  ...SIGNED_IN_PERSON_CAPABILITIES,
  ...SIGNED_IN_PERSON_PROMPT_GRANTS,
];

/** Reading a prompt is a read; publishing, rolling back and deprecating change what every caller of the prompt gets. */
export const PROMPT_ACTION_RISK: Record<PromptAction, RiskLevel> = {
  read: 'low',
  publish: 'standard',
  rollback: 'standard',
  deprecate: 'standard',
};

/** What a delegation may carry: a capability or a prompt grant. */
export function isDelegableGrant(value: string): boolean {
  return isCapability(value) || isPromptScope(value);
}

export function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

/** Whether a credential holding `held` (capability names, perhaps scopes too) may use `needed` at `risk_level`. */
export function allowsCapability(held: readonly string[], needed: Capability, riskLevel: RiskLevel): boolean {
  return held.includes(needed) && riskRank(riskLevel) >= riskRank(CAPABILITIES[needed].risk);
}
