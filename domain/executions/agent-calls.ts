import { qualify, satisfierIndex, type HeldGrant } from '../capabilities/matcher';
import { AMOUNT_RISK_TIERS, evaluateRisk, isRiskLevel, RISK_LEVELS, riskRank, type RiskLevel } from '../routing/risk';

/**
 * The platform's agent calls: agent and capability URIs, matching a requested capability against what an
 * agent offers, the risk of a call, and whether the agent's policy wants a human to approve it first.
 */

const SEGMENT = '[a-z0-9][a-z0-9._-]{0,62}';
const AGENT_URI = new RegExp(`^agent://(${SEGMENT})/(${SEGMENT})@(\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?)$`);
const CAPABILITY_URI = new RegExp(`^capability://(?:(${SEGMENT})/)?(${SEGMENT})$`);

export interface AgentUri {
  org: string;
  name: string;
  version: string;
}

/** `agent://<org>/<name>@<semver>`, lower-case org and name. */
export function parseAgentUri(uri: string): AgentUri | undefined {
  const match = AGENT_URI.exec(uri);
  return match ? { org: match[1]!, name: match[2]!, version: match[3]! } : undefined;
}

export function agentUriOf(parts: AgentUri): string {
  return `agent://${parts.org}/${parts.name}@${parts.version}`;
}

export interface CapabilityUri {
  org?: string;
  name: string;
}

/** `capability://<org>/<name>` or, organization left open, `capability://<name>`. */
export function parseCapabilityUri(uri: string): CapabilityUri | undefined {
  const match = CAPABILITY_URI.exec(uri);
  if (!match) return undefined;
  return match[1] ? { org: match[1], name: match[2]! } : { name: match[2]! };
}

/**
 * The capability of `offered` that serves `requested`: the same URI, or, when the request leaves the
 * organization open, the offered capability of that name.
 */
export function matchCapability(offered: readonly string[], requested: string): string | undefined {
  const wanted = parseCapabilityUri(requested);
  if (!wanted) return offered.includes(requested) ? requested : undefined;
  // The capabilities matcher decides (domain/capabilities/matcher.ts): each offered URI the request may name is
  // a held grant (the exact URI first), and the request one requirement.
  const grants: HeldGrant[] = [...offered]
    .sort((a, b) => Number(b === requested) - Number(a === requested))
    .flatMap((uri) => {
      const parsed = parseCapabilityUri(uri);
      if (!parsed || (wanted.org !== undefined && parsed.org !== wanted.org)) return [];
      return [{ grant_id: uri, capability: parsed.name, weight: 1, expires_at: null, revoked: false }];
    });
  const requirements = [{ capability: wanted.name, min_weight: 0 }];
  const agent = {
    kind: 'agent' as const,
    did: requested,
    available: true,
    open_assignments: 0,
    capacity: null,
    grants,
  };
  return qualify(agent, requirements, satisfierIndex(requirements, new Map()), { now: 0 })?.met[0]?.grant_id;
}

/** `never`, or the lowest risk level at which a call needs a human's approval (`low`: always). */
export const APPROVAL_THRESHOLDS = ['never', ...RISK_LEVELS] as const;
export type ApprovalThreshold = (typeof APPROVAL_THRESHOLDS)[number];

export interface ApprovalPolicy {
  require_approval_at: ApprovalThreshold;
  /** Who approves calls of this agent; unset, anyone with platform:write may. */
  approver_passport_id?: string | undefined;
  /** Seconds the approver has before the call's approval expires. */
  approval_ttl_seconds?: number | undefined;
}

export function approvalRequired(policy: ApprovalPolicy, risk: RiskLevel): boolean {
  return policy.require_approval_at !== 'never' && riskRank(risk) >= riskRank(policy.require_approval_at);
}

export interface RiskFactor {
  factor: string;
  severity: RiskLevel;
}

/** The level each of evaluateRisk's signals raises the risk to. */
function severityOf(factor: string): RiskLevel {
  const [name, argument] = factor.split(':');
  if (name === 'declared_risk_level' && isRiskLevel(argument)) return argument;
  if (name === 'life_safety_flag') return 'critical';
  if (name === 'amount_at_least')
    return AMOUNT_RISK_TIERS.find((tier) => tier.atLeast === Number(argument))?.level ?? 'medium';
  if (name === 'irreversible_action') return 'high';
  return 'medium';
}

/** The risk of a call from its parameters, read the way routing reads a task's context. */
export function assessCallRisk(parameters: Record<string, unknown>): { level: RiskLevel; factors: RiskFactor[] } {
  const risk = evaluateRisk({ context: parameters, lifeSafetyFlag: parameters.life_safety_flag === true });
  return { level: risk.level, factors: risk.factors.map((factor) => ({ factor, severity: severityOf(factor) })) };
}

export type AgentCallCheck =
  | { ok: true; capability_uri: string; risk: { level: RiskLevel; factors: RiskFactor[] }; approval_required: boolean }
  | { ok: false; code: 'agent_inactive' | 'capability_not_matched'; detail: string };

/**
 * The capability name a registration's offered URI is granted as (the grant-sync trigger's key, migration
 * 20261201007100): its last segment, lower-cased.
 */
export function offeredGrantName(offeredUri: string): string {
  return offeredUri.slice(offeredUri.lastIndexOf('/') + 1).toLowerCase();
}

/**
 * Whether an agent may take a call at all, and whether a human must approve it first. Grants are the one
 * source: `granted` says the matcher found a live grant of the agent's satisfying the call, directly or by
 * implication (a cardiologist is a physician); for a capability the registration offers, that is the grant
 * the registration made (offeredGrantName), so revoking it stops the offered URI too. When the registration
 * offers it, the offered URI is called; otherwise the requested one.
 */
export function checkAgentCall(
  agent: { agent_uri: string; status: string; capabilities: readonly string[]; approval_policy: ApprovalPolicy },
  call: { capability_uri: string; parameters: Record<string, unknown> },
  granted: boolean,
): AgentCallCheck {
  if (agent.status !== 'active')
    return { ok: false, code: 'agent_inactive', detail: `${agent.agent_uri} is ${agent.status}` };
  const offered = matchCapability(agent.capabilities, call.capability_uri);
  const capability = granted ? (offered ?? call.capability_uri) : undefined;
  if (!capability) {
    return {
      ok: false,
      code: 'capability_not_matched',
      detail: offered
        ? `${agent.agent_uri} offers ${offered} but holds no live grant of it (revoked or expired)`
        : `${agent.agent_uri} does not offer ${call.capability_uri}; it offers ${agent.capabilities.join(', ') || 'nothing'}`,
    };
  }
  const risk = assessCallRisk(call.parameters);
  return {
    ok: true,
    capability_uri: capability,
    risk,
    approval_required: approvalRequired(agent.approval_policy, risk.level),
  };
}

export const EXECUTION_STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export function isFinished(status: ExecutionStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
