import type { RiskLevel } from '../routing/risk';

/** Orchestration agents: the AI agents that call the agent operations with X-Agent-ID. */
export const AGENT_STATUSES = ['active', 'suspended', 'retired'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** urn:<namespace>:agent:<kind>:<instance>, as the spec writes agent ids. */
export const AGENT_URN_PATTERN = /^urn:[a-z0-9][a-z0-9-]{0,62}:agent:[a-z0-9][a-z0-9_-]{0,62}:[A-Za-z0-9._-]{1,128}$/;

export interface AgentCapability {
  capability_id: string;
  confidence_level: number;
}

export interface AgentSafetyConstraints {
  /** The agent never prescribes; a task that involves prescribing goes to a human. */
  cannot_prescribe?: boolean | undefined;
  /** A human confirms whatever the agent does: its routings are hybrid at least. */
  requires_human_confirmation?: boolean | undefined;
  /** The highest risk the agent may act on alone. */
  max_risk_level?: RiskLevel | undefined;
}

/** What routing and safety checks need to know about a registered agent. */
export interface AgentProfile {
  agent_id: string;
  status: AgentStatus;
  capabilities: AgentCapability[];
  safety_constraints: AgentSafetyConstraints;
}

/** One per constraint that is set, as the spec's safety_boundaries_configured counts them. */
export function configuredConstraintCount(constraints: AgentSafetyConstraints): number {
  return [
    constraints.cannot_prescribe === true,
    constraints.requires_human_confirmation === true,
    constraints.max_risk_level !== undefined,
  ].filter(Boolean).length;
}

const PRESCRIBING = /prescri|medication_order/i;

/** An action involves prescribing when its name says so, or the task flags it (`context.involves_prescription`). */
export function involvesPrescription(action: string, context: Record<string, unknown>): boolean {
  return PRESCRIBING.test(action) || context.involves_prescription === true;
}

/** The agent's proven weight for a capability (its declared confidence level), 0 when it declares none. */
export function agentCapabilityWeight(agent: AgentProfile | null, capabilityId: string): number {
  return agent?.capabilities.find((capability) => capability.capability_id === capabilityId)?.confidence_level ?? 0;
}
