/**
 * A person's inbox items: the routings escalated to them, the approval requests naming them and the
 * escalation queue's open requests, each with what a reviewer needs to decide (task, context, agent,
 * recommendation, risk, safety analysis, who had it before and when it moves on).
 */
import type { ApprovalState } from '../../contracts/aggregates/approval';
import type { RoutingState } from '../../contracts/aggregates/routing';
import { urgencyOf, type InboxItemKind, type InboxUrgency } from '../../domain/inbox/urgency';
import type { RoutingTask } from '../../domain/routing/decision';
import type { RiskLevel } from '../../domain/routing/risk';

export interface ChainStep {
  level: number;
  did: string;
  name: string | null;
  escalation_level: string;
  since: string;
  /** The step that holds the item now. */
  current: boolean;
  /** The reviewer this step's holder covers for (a cover in force when it was assigned), or null. */
  covering_for: string | null;
  covering_for_name: string | null;
}

export interface InboxItem {
  item_id: string;
  kind: InboxItemKind;
  title: string;
  task_type: string | null;
  urgency: InboxUrgency;
  risk_level: RiskLevel;
  risk_factors: Array<{ factor: string; severity: RiskLevel }>;
  /** When the item leaves this person: a routing moves up its chain, a request expires. */
  deadline: string | null;
  deadline_kind: 'escalates' | 'expires' | null;
  seconds_left: number | null;
  agent_id: string | null;
  recommendation: string | null;
  confidence: number | null;
  context: Record<string, unknown>;
  safety_analysis: Record<string, unknown> | null;
  params_schema: Record<string, unknown> | null;
  /** The decisions this item takes (approved may carry modified_parameters). */
  decisions: string[];
  escalation_chain: ChainStep[];
  created_at: string;
  version: number;
}

const secondsUntil = (deadline: string | null, nowMs: number) =>
  deadline === null ? null : Math.floor((Date.parse(deadline) - nowMs) / 1000);

/** Why a routing came to a human, as risk factors. */
function routingRiskFactors(routing: RoutingState, risk: RiskLevel): InboxItem['risk_factors'] {
  return [
    ...(routing.fourth_law_triggered
      ? [{ factor: 'AI confidence below 0.70 (Fourth Law)', severity: 'high' as const }]
      : []),
    ...(routing.safety_violation_count
      ? [
          {
            factor: `${String(routing.safety_violation_count)} safety boundary violation(s)`,
            severity: 'critical' as const,
          },
        ]
      : []),
    ...(routing.rules_triggered ?? []).map((rule) => ({ factor: `escalation rule ${rule}`, severity: risk })),
  ];
}

export function routingItem(
  routing: RoutingState,
  task: RoutingTask,
  facts: { names: ReadonlyMap<string, string>; timeoutsSeconds: Readonly<Record<string, number>>; nowMs: number },
): InboxItem {
  const chain = routing.escalation_chain;
  const last = chain[chain.length - 1];
  const timeout = facts.timeoutsSeconds[routing.escalation_level];
  const deadline = last && timeout ? new Date(Date.parse(last.timestamp) + timeout * 1000).toISOString() : null;
  const seconds_left = secondsUntil(deadline, facts.nowMs);
  const risk_level = routing.risk_level ?? routing.decision_result?.safety_analysis.risk_level ?? 'medium';
  return {
    item_id: routing.routing_id,
    kind: 'routing',
    title: `${task.task_type}: ${routing.reason ?? 'a human decides'}`,
    task_type: task.task_type,
    urgency: urgencyOf(seconds_left, risk_level),
    risk_level,
    risk_factors: routingRiskFactors(routing, risk_level),
    deadline,
    deadline_kind: deadline ? 'escalates' : null,
    seconds_left,
    agent_id: task.ai_agent_id,
    recommendation: task.ai_recommendation ?? null,
    confidence: task.ai_confidence,
    context: task.context,
    safety_analysis: routing.decision_result?.safety_analysis ?? null,
    params_schema: null,
    decisions: ['approved', 'rejected', 'modified'],
    escalation_chain: chain.map((entry, index) => ({
      level: entry.level,
      did: entry.did,
      name: facts.names.get(entry.did) ?? null,
      escalation_level: entry.escalation_level,
      since: entry.timestamp,
      current: index === chain.length - 1,
      covering_for: entry.covering_for ?? null,
      covering_for_name: entry.covering_for === undefined ? null : (facts.names.get(entry.covering_for) ?? null),
    })),
    created_at: routing.created_at,
    version: routing.version,
  };
}

export function approvalItem(approval: ApprovalState, kind: 'approval' | 'escalation', nowMs: number): InboxItem {
  const seconds_left = secondsUntil(approval.expires_at, nowMs);
  const data = approval.request_data;
  return {
    item_id: approval.approval_id,
    kind,
    title: approval.action_description,
    task_type: null,
    urgency: urgencyOf(seconds_left, approval.risk_level),
    risk_level: approval.risk_level,
    risk_factors: approval.risk_factors,
    deadline: approval.expires_at,
    deadline_kind: 'expires',
    seconds_left,
    agent_id: approval.agent_id ?? null,
    recommendation: typeof data.recommendation === 'string' ? data.recommendation : null,
    confidence: typeof data.confidence === 'number' ? data.confidence : null,
    context: data,
    safety_analysis: null,
    params_schema: approval.params_schema ?? null,
    decisions: ['approved', 'rejected'],
    escalation_chain: [],
    created_at: approval.created_at,
    version: approval.version,
  };
}
