/**
 * What a delegation token (or a signed-in person) may do: named capabilities, each with the risk of the
 * operations it opens and the older bearer-token scope that implies it. The operation → capability table
 * is api/capabilities.ts; this is the vocabulary and the rules of narrowing. Beside the capabilities, a
 * delegation may carry prompt grants (prompt:<action>:<key-pattern>, domain/prompts/scopes.ts).
 */
import { isPromptScope, type PromptAction } from '../prompts/scopes';
import { RISK_LEVELS, type CapabilityDefinition, type RiskLevel } from './capability-vocabulary/definition';
import { MARKETPLACE_CAPABILITIES } from './capability-vocabulary/marketplace';
import { ORCHESTRATION_CAPABILITIES } from './capability-vocabulary/orchestration';
import { PEOPLE_CAPABILITIES } from './capability-vocabulary/people';
import { PLATFORM_CAPABILITIES } from './capability-vocabulary/platform';

export {
  RISK_LEVELS,
  type CapabilityDefinition,
  type LegacyScope,
  type RiskLevel,
} from './capability-vocabulary/definition';

/** The whole vocabulary, one file per area; a name stands in one area only (test/domain/identity/vocabulary.test.ts). */
export const CAPABILITIES = {
  ...PLATFORM_CAPABILITIES,
  ...PEOPLE_CAPABILITIES,
  ...ORCHESTRATION_CAPABILITIES,
  ...MARKETPLACE_CAPABILITIES,
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
