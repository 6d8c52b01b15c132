import { z } from 'zod';
import type { HumanActor } from '../../domain/identity/human-acts';
import type { LedgerAnchor } from '../../domain/provenance/records';
import {
  ESCALATION_LEVELS,
  ROUTING_DECISIONS,
  ROUTING_MODES,
  type RequiredCapability,
  type RoutingVerdict,
} from '../../domain/routing/decision';
import { ROUTING_STATUSES } from '../../domain/routing/progress';
import type { CapabilityMatch } from '../../domain/routing/reviewer-assignment';
import { RISK_LEVELS } from '../../domain/routing/risk';

/*
 * The routing's JSON fields (who holds it, its chain, its resolution, its decision) as the workflow holds
 * them. Values the domain already types (a ledger anchor, a person, a capability match) are taken as typed.
 */

export const AssignedTo = z.object({
  type: z.enum(['human', 'ai_agent']),
  did: z.string(),
  agent_id: z.string().optional(),
  /** The reviewer the holder covers for (a cover in force at the assignment): "Bea, covering for Ada". */
  covering_for: z.string().optional(),
  capabilities_matched: z.array(z.custom<CapabilityMatch>()),
});
export type AssignedTo = z.infer<typeof AssignedTo>;

export const EscalationChainEntry = z.object({
  level: z.number().int(),
  escalation_level: z.enum(ESCALATION_LEVELS),
  did: z.string(),
  /** The reviewer this holder covered for. */
  covering_for: z.string().optional(),
  timestamp: z.string(),
});
export type EscalationChainEntry = z.infer<typeof EscalationChainEntry>;

export const RESOLUTION_OUTCOMES = ['approved', 'rejected', 'modified'] as const;
export type ResolutionOutcome = (typeof RESOLUTION_OUTCOMES)[number];

/** A reviewer's answer to a routing a human holds. */
export const RoutingResolution = z.object({
  reviewer_did: z.string(),
  /** approved: the AI's recommendation stands; rejected: it does not; modified: it stands as changed. */
  outcome: z.enum(RESOLUTION_OUTCOMES),
  comment: z.string().optional(),
  modified_recommendation: z.string().optional(),
  /** The signed-in person who resolves, with the credential that authenticated them (absent in histories from before). */
  actor: z.custom<HumanActor>().optional(),
  resolved_at: z.string(),
  ledger_anchor: z.custom<LedgerAnchor>(),
});
export type RoutingResolution = z.infer<typeof RoutingResolution>;
/** What the reviewer gives; the routing adds when and the record's anchor. */
export type ResolveRoutingInput = Omit<RoutingResolution, 'resolved_at' | 'ledger_anchor'>;

/**
 * Why a routing that needs a human has none yet: no available reviewer holds what it needs. It waits in the
 * queue (status queued) and is assigned as soon as one is (registered, updated or freed) or an admin
 * assigns one; meanwhile supervisors are told and the escalation levels still rise on their timeouts.
 */
export const QueuedFor = z.object({
  reason: z.literal('no_qualified_reviewer'),
  required_capabilities: z.array(z.custom<RequiredCapability>()),
  /** For the agent: a human takes over when one is available; it must not act alone meanwhile. */
  message: z.string(),
});
export type QueuedFor = z.infer<typeof QueuedFor>;

export const RoutingDecisionResult = z.object({
  routing_id: z.string(),
  decision: z.enum(ROUTING_DECISIONS),
  reason: z.string(),
  /** null while the routing waits in the queue for a qualified reviewer (see queued). */
  assigned_to: AssignedTo.nullable(),
  queued: QueuedFor.optional(),
  escalation_level: z.enum(ESCALATION_LEVELS),
  estimated_response_time: z.number(),
  safety_analysis: z.custom<RoutingVerdict['safety_analysis']>(),
  provenance: z.object({
    decision_made_by: z.string(),
    timestamp: z.string(),
    rule_triggered: z.string(),
    ledger_anchor: z.custom<LedgerAnchor>(),
  }),
  fourth_law_triggered: z.boolean(),
  rules_triggered: z.array(z.string()),
  rule_conflict: z.object({ rule_ids: z.array(z.string()), target_capabilities: z.array(z.string()) }).optional(),
});
export type RoutingDecisionResult = z.infer<typeof RoutingDecisionResult>;

/**
 * A routing: who decided what about a task, who holds it, and how it ended. The route-task workflow holds
 * it (its status query; versioned so projections apply in order), the routings table projects it beside
 * the workflow's input (db/routings.ts), the API shows it (api/orch/routing.ts toRoutingStatus); all of
 * them take their fields from here. The fields the status view shows come first, in its order. The task's
 * own fields are the task's, copied so that lists filter and sort on them.
 */
export const RoutingState = z.object({
  routing_id: z.string(),
  version: z.number().int(),
  status: z.enum(ROUTING_STATUSES),
  decision: z.enum(ROUTING_DECISIONS).optional(),
  reason: z.string().optional(),
  escalation_level: z.enum(ESCALATION_LEVELS),
  assigned_to: AssignedTo.optional(),
  created_at: z.string(),
  assigned_at: z.string().optional(),
  escalation_chain: z.array(EscalationChainEntry),
  resolution: RoutingResolution.optional(),
  task_type: z.string(),
  ai_agent_id: z.string(),
  ai_confidence: z.number(),
  risk_level: z.enum(RISK_LEVELS).optional(),
  estimated_response_time: z.number().int().optional(),
  decision_result: RoutingDecisionResult.optional(),
  domain: z.string().optional(),
  routing_mode: z.enum(ROUTING_MODES).optional(),
  fourth_law_triggered: z.boolean().optional(),
  safety_violation_count: z.number().int().optional(),
  /** Escalation rules that triggered at the decision. */
  rules_triggered: z.array(z.string()).optional(),
  /** When a human first took the routing: at the decision, or by a later escalation. */
  escalated_at: z.string().optional(),
  updated_at: z.string(),
});
export type RoutingState = z.infer<typeof RoutingState>;
