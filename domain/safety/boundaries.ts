import { agentCapabilityWeight, involvesPrescription, type AgentProfile } from '../agents/agents';
import { evaluateConditions, type Condition, type RoutingFacts } from '../rules/conditions';
import { riskRank, type RiskAssessment, type RiskLevel, type RiskThresholds } from '../routing/risk';
import { FOURTH_LAW_THRESHOLD, type RequiredCapability } from '../routing/decision';

/**
 * The safety envelope of a domain: boundaries an actor's action is checked against. What each type binds:
 *
 *   capability_boundary  an AI agent must hold the listed capabilities (its declared confidence level at
 *                        least min_weight) to take the action
 *   safety_boundary      an AI agent may not take the action on its own where the conditions hold
 *                        (no conditions: never)
 *   risk_boundary        an AI agent may not act alone above max_risk_level
 *   context_boundary     anyone acting needs the listed context fields present (e.g. patient consent)
 *
 * The first three bind AI agents (a human may do what an AI may not); context boundaries bind everyone.
 * `actions` limits a boundary to those actions (empty: all). `exceptions` names a context flag that, when
 * true, waives the boundary for a human actor only: an AI agent gets no exceptions.
 */
export const BOUNDARY_TYPES = ['capability_boundary', 'safety_boundary', 'risk_boundary', 'context_boundary'] as const;
export type BoundaryType = (typeof BOUNDARY_TYPES)[number];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const ENFORCEMENTS = ['strict', 'advisory'] as const;
export type Enforcement = (typeof ENFORCEMENTS)[number];

interface BoundaryBase {
  boundary_id: string;
  description: string;
  /** strict: a violation forbids the action; advisory: it is reported and asks for a human's confirmation. */
  enforcement: Enforcement;
  severity: Severity;
  exceptions: string | null;
  /** Whether a violation sends the task to a human (strict) or asks a human to confirm (advisory). */
  escalation_required: boolean;
  actions: string[];
}

export type Boundary =
  | (BoundaryBase & { type: 'capability_boundary'; required_capabilities: RequiredCapability[] })
  | (BoundaryBase & { type: 'safety_boundary'; conditions: Condition[] })
  | (BoundaryBase & { type: 'risk_boundary'; max_risk_level: RiskLevel })
  | (BoundaryBase & { type: 'context_boundary'; required_context: string[] });

export interface DomainSafetyConfig {
  domain: string;
  boundaries: Boundary[];
  risk_thresholds: RiskThresholds;
  /** Task types that belong to the domain when a task names no domain itself. */
  task_types: string[];
}

export interface SafetyActor {
  type: 'ai_agent' | 'human';
  agent_id?: string | undefined;
  /** The AI's confidence for this action; checked against the Fourth Law when given. */
  confidence?: number | undefined;
}

export interface Violation {
  boundary_id: string;
  boundary_type: BoundaryType;
  severity: Severity;
  description: string;
  /** A stable code, e.g. amount_exceeds_ai_authority. */
  reason: string;
  enforcement: Enforcement;
  escalation_required: boolean;
}

export interface BoundaryEvaluation {
  violations: Violation[];
  boundaries_checked: number;
  /** Boundaries a human actor's exception waived. */
  waived: string[];
  /** The agent's own constraint asks a human to confirm whatever it does. */
  confirmation_required: boolean;
  /** What whoever takes the action should hold: the capability boundaries that apply to it. */
  recommended_capabilities: RequiredCapability[];
}

export interface SafetyInput {
  action: string;
  context: Record<string, unknown>;
  actor: SafetyActor;
  /** The registered agent behind an ai_agent actor, or null when it is not known. */
  agent: AgentProfile | null;
  config: DomainSafetyConfig;
  facts: RoutingFacts;
  risk: RiskAssessment;
}

/** The domain a task belongs to: the one it names (context.domain), else the one listing its task type, else general. */
export function resolveDomain(
  task: { task_type: string; context: Record<string, unknown> },
  configs: readonly DomainSafetyConfig[],
): string {
  const named = task.context.domain;
  if (typeof named === 'string' && named.length > 0) return named;
  return configs.find((config) => config.task_types.includes(task.task_type))?.domain ?? 'general';
}

/** A risk boundary crossed because of the amount says so, since that is what an agent can change. */
function riskReason(risk: RiskAssessment, ceiling: RiskLevel): string {
  const amountDriven =
    risk.factors.some((factor) => factor.startsWith('amount_at_least:')) && riskRank(risk.level) > riskRank(ceiling);
  return amountDriven ? 'amount_exceeds_ai_authority' : 'risk_exceeds_ai_authority';
}

function missingContext(context: Record<string, unknown>, field: string): boolean {
  const value = context[field];
  return value === undefined || value === null || value === '' || value === false;
}

/** Whether one boundary is crossed, and why (the reason code), for the actor taking the action. */
function crossed(boundary: Boundary, input: SafetyInput): string | undefined {
  switch (boundary.type) {
    case 'capability_boundary': {
      const gap = boundary.required_capabilities.find(
        (need) => agentCapabilityWeight(input.agent, need.capability_id) < need.min_weight,
      );
      return gap ? 'capability_not_proven' : undefined;
    }
    case 'safety_boundary':
      return evaluateConditions(boundary.conditions, input.facts).holds ? 'safety_boundary_crossed' : undefined;
    case 'risk_boundary':
      return riskRank(input.risk.level) > riskRank(boundary.max_risk_level)
        ? riskReason(input.risk, boundary.max_risk_level)
        : undefined;
    case 'context_boundary':
      return boundary.required_context.some((field) => missingContext(input.context, field))
        ? 'missing_context'
        : undefined;
  }
}

/**
 * What the agent's own registered constraints forbid it: prescribing when it cannot, and acting alone
 * above its risk ceiling. (requires_human_confirmation forbids nothing; it asks for a confirmation.)
 */
export function agentConstraintViolations(
  agent: AgentProfile,
  action: string,
  context: Record<string, unknown>,
  risk: RiskAssessment,
): Violation[] {
  const constraints = agent.safety_constraints;
  const violations: Violation[] = [];
  if (constraints.cannot_prescribe && involvesPrescription(action, context)) {
    violations.push({
      boundary_id: 'agent:cannot_prescribe',
      boundary_type: 'safety_boundary',
      severity: 'critical',
      description: `${agent.agent_id} is registered as unable to prescribe`,
      reason: 'agent_cannot_prescribe',
      enforcement: 'strict',
      escalation_required: true,
    });
  }
  if (constraints.max_risk_level && riskRank(risk.level) > riskRank(constraints.max_risk_level)) {
    violations.push({
      boundary_id: 'agent:max_risk_level',
      boundary_type: 'risk_boundary',
      severity: 'high',
      description: `${risk.level} risk exceeds the ${constraints.max_risk_level} the agent may act on alone`,
      reason: riskReason(risk, constraints.max_risk_level),
      enforcement: 'strict',
      escalation_required: true,
    });
  }
  return violations;
}

const applies = (boundary: Boundary, action: string) =>
  boundary.actions.length === 0 || boundary.actions.includes(action);

/**
 * Checks the action against the domain's boundaries and, for an AI agent, against the Fourth Law (when
 * its confidence is given) and its own registered constraints. Each check that applies counts toward
 * boundaries_checked; each one crossed is a violation.
 */
export function evaluateBoundaries(input: SafetyInput): BoundaryEvaluation {
  const violations: Violation[] = [];
  const waived: string[] = [];
  let checked = 0;
  const ai = input.actor.type === 'ai_agent';

  if (ai && input.actor.confidence !== undefined) {
    checked += 1;
    if (input.actor.confidence < FOURTH_LAW_THRESHOLD) {
      violations.push({
        boundary_id: 'fourth_law',
        boundary_type: 'capability_boundary',
        severity: 'high',
        description: `AI confidence ${input.actor.confidence} is below the ${FOURTH_LAW_THRESHOLD} minimum for autonomous action`,
        reason: 'ai_confidence_below_threshold',
        enforcement: 'strict',
        escalation_required: true,
      });
    }
  }

  const constraints = ai ? input.agent?.safety_constraints : undefined;
  if (ai && input.agent) {
    checked += (constraints?.cannot_prescribe ? 1 : 0) + (constraints?.max_risk_level ? 1 : 0);
    violations.push(...agentConstraintViolations(input.agent, input.action, input.context, input.risk));
  }

  const recommended = new Map<string, number>();
  for (const boundary of input.config.boundaries) {
    if (!applies(boundary, input.action)) continue;
    if (boundary.type === 'capability_boundary') {
      for (const need of boundary.required_capabilities)
        recommended.set(need.capability_id, Math.max(need.min_weight, recommended.get(need.capability_id) ?? 0));
    }
    if (!ai && boundary.type !== 'context_boundary') continue;
    checked += 1;
    const reason = crossed(boundary, input);
    if (!reason) continue;
    if (!ai && boundary.exceptions && input.context[boundary.exceptions] === true) {
      waived.push(boundary.boundary_id);
      continue;
    }
    const { boundary_id, type: boundary_type, severity, description, enforcement, escalation_required } = boundary;
    violations.push({ boundary_id, boundary_type, severity, description, reason, enforcement, escalation_required });
  }

  return {
    violations,
    boundaries_checked: checked,
    waived,
    confirmation_required: constraints?.requires_human_confirmation === true,
    recommended_capabilities: [...recommended].map(([capability_id, min_weight]) => ({ capability_id, min_weight })),
  };
}

/** A violation that keeps the actor from acting alone: the task goes to a human. */
export function isBlocking(violation: Violation): boolean {
  return violation.enforcement === 'strict';
}

/** A violation that does not forbid the action but asks a human to confirm it. */
export function asksConfirmation(violation: Violation): boolean {
  return violation.enforcement === 'advisory' && violation.escalation_required;
}
