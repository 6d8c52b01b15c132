import { dueNotifications, levelRank, type RuleSetEvaluation } from '../rules/escalation-rules';
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';
import { agentDid, ORCH_CORE_DID, type OutboxEvent, type ProvenanceActor } from '../provenance/records';
import {
  assignReviewer,
  metWeight,
  suggestReviewers,
  type Assignment,
  type LoadedReviewer,
} from './reviewer-assignment';
import {
  LEVEL_FOR_RISK,
  raiseEscalationLevel,
  type EscalationLevel,
  type RequiredCapability,
  type RoutingMode,
} from './decision';
import type { RiskLevel } from './risk';
import { describeNeeds } from './steps';

/**
 * What a running routing decides as it moves between people: who takes it, at what escalation level,
 * when its current holder's time runs out, and which supervisors to tell. Pure: the reviewers and the time
 * come in as inputs.
 *
 * A routing's holder is one of:
 *   agent     decided for the agent alone and still open to an escalation (escalation mode, within its window)
 *   human     a reviewer on the escalation chain holds it
 *   queue     a human is needed but none qualified was available: it waits, unassigned, for one
 */
export type RoutingHolder = 'agent' | 'human' | 'queue';

/** The needs of an escalation: the routing's own, with a requested capability added or raised to its weight. */
export function escalationNeeds(
  needs: readonly RequiredCapability[],
  target: RequiredCapability | undefined,
): RequiredCapability[] {
  if (!target) return [...needs];
  const own = needs.find((need) => need.capability_id === target.capability_id);
  return own
    ? needs.map((need) => (need === own ? { ...need, min_weight: Math.max(need.min_weight, target.min_weight) } : need))
    : [...needs, target];
}

/** Whether the reviewers loaded for the task's own capabilities can serve needs (a rule may have added one). */
export function candidatesCover(
  taskNeeds: readonly RequiredCapability[],
  needs: readonly RequiredCapability[],
): boolean {
  return needs.every((need) => taskNeeds.some((own) => own.capability_id === need.capability_id));
}

export interface EscalationRequest {
  /** Whether the request names a capability the new reviewer must hold. */
  targeted: boolean;
  urgency?: EscalationLevel | undefined;
}

/**
 * Who takes a routing moved by request. From the agent or the queue, or to a named capability, the
 * least-loaded qualified reviewer other than the current one; otherwise the next reviewer up the chain.
 */
export function reviewerForRequest(
  reviewers: readonly LoadedReviewer[],
  needs: RequiredCapability[],
  holder: RoutingHolder,
  request: EscalationRequest,
  current: Assignment | undefined,
): Assignment | undefined {
  if (holder !== 'human' || request.targeted)
    return assignReviewer(reviewers, needs, current ? { exclude: [current.did] } : {});
  return assignReviewer(reviewers, needs, { aboveChainLevel: current?.chain_level ?? 0 });
}

/**
 * The level a routing moved by request runs at: what was asked, else by its risk when it leaves the agent,
 * else one above the current level (the queue's own level for a queued one). Moving a routing a human
 * holds, or that waits in the queue, never lowers its urgency.
 */
export function levelForRequest(
  holder: RoutingHolder,
  request: EscalationRequest,
  current: EscalationLevel,
  risk: RiskLevel,
): EscalationLevel {
  const asked =
    request.urgency ??
    (holder === 'agent' ? LEVEL_FOR_RISK[risk] : holder === 'queue' ? current : raiseEscalationLevel(current));
  return holder === 'agent' || levelRank(asked) > levelRank(current) ? asked : current;
}

/** The level a queued routing rises to when its level times out with nobody found; none past urgent (it expires). */
export function nextQueueLevel(level: EscalationLevel): EscalationLevel | undefined {
  return level === 'urgent' ? undefined : raiseEscalationLevel(level);
}

/**
 * The assignment an admin makes by hand: the reviewer they chose, whatever the queue waited for, with the
 * needed capabilities the reviewer does hold at their weight; qualified says whether that is all of them.
 */
export function adminAssignment(
  reviewer: { did: string; capabilities: Record<string, number>; chain_level: number },
  needs: readonly RequiredCapability[],
): { assignment: Assignment; qualified: boolean } {
  const person = { ...reviewer, display_name: reviewer.did, available: true };
  const held = needs.flatMap((need) => {
    const weight = metWeight(person, need);
    return weight === undefined ? [] : [{ capability_id: need.capability_id, weight }];
  });
  return {
    assignment: { did: reviewer.did, chain_level: reviewer.chain_level, capabilities_matched: held },
    qualified: held.length === needs.length,
  };
}

/** What a queued routing tells its caller: nobody qualified yet, and that a human takes over as soon as one is. */
export function queuedFor(needs: RequiredCapability[]): {
  reason: 'no_qualified_reviewer';
  required_capabilities: RequiredCapability[];
  message: string;
} {
  return {
    reason: 'no_qualified_reviewer',
    required_capabilities: needs,
    message:
      `No available reviewer holds ${describeNeeds(needs)} now. The task waits in the queue for one and a human takes over as soon as one is ` +
      'available (supervisors are told); the agent must not act on it alone meanwhile.',
  };
}

/** When the holder's level times out: the next reviewer up the chain at the next level, or none (the chain is exhausted). */
export function nextOnTimeout(
  reviewers: readonly LoadedReviewer[],
  needs: RequiredCapability[],
  from: Assignment,
  level: EscalationLevel,
): { next: Assignment; level: EscalationLevel } | undefined {
  const next = assignReviewer(reviewers, needs, { aboveChainLevel: from.chain_level });
  return next && { next, level: raiseEscalationLevel(level) };
}

/** Whom the agent may ask when its confidence falls: the reviewer holding the task first, then the qualified ones by load. */
export function suggestedReviewers(
  holderDid: string | undefined,
  reviewers: readonly LoadedReviewer[],
  needs: RequiredCapability[],
): string[] {
  return [...new Set([...(holderDid ? [holderDid] : []), ...suggestReviewers(reviewers, needs)])];
}

/**
 * Who holds a routing once decided, and for how many seconds before its deadline: a human (or the queue,
 * when none qualified) for the level's timeout; the agent, open to an escalation, for the window of
 * escalation mode; else, decided for the agent and completed, open to a supervisor's review for the review
 * window ('review'); else nobody (the routing is closed).
 */
export function holderAfterDecision(decision: {
  human: boolean;
  assigned: boolean;
  routing_mode: RoutingMode | undefined;
  response_seconds: number;
  window_seconds: number;
  review_seconds: number;
}): { holder: RoutingHolder | 'review' | 'none'; seconds: number } {
  if (decision.human) return { holder: decision.assigned ? 'human' : 'queue', seconds: decision.response_seconds };
  if (decision.routing_mode === 'escalation' && decision.window_seconds > 0)
    return { holder: 'agent', seconds: decision.window_seconds };
  if (decision.review_seconds > 0) return { holder: 'review', seconds: decision.review_seconds };
  return { holder: 'none', seconds: decision.window_seconds };
}

/** When the agent's escalation window ends: the review window still open (seconds since the decision), or closed. */
export function afterAgentWindow(
  windowSeconds: number,
  reviewSeconds: number,
): { holder: 'review'; seconds: number } | { holder: 'none' } {
  return reviewSeconds > windowSeconds ? { holder: 'review', seconds: reviewSeconds } : { holder: 'none' };
}

/**
 * Whether a request may escalate a routing under review: a supervisor's (a person, or the tool they use with its
 * own credential), never the agent's own.
 */
export function mayReopenForReview(requestedBy: { type: 'ai_agent' | 'human' | 'principal' }): boolean {
  return requestedBy.type !== 'ai_agent';
}

/** A duration for people: `7 days`, `90 minutes`, `1 second`. */
export function describeDuration(seconds: number): string {
  const [amount, unit] =
    seconds > 0 && seconds % 86_400 === 0
      ? [seconds / 86_400, 'day']
      : seconds > 0 && seconds % 3600 === 0
        ? [seconds / 3600, 'hour']
        : seconds > 0 && seconds % 60 === 0
          ? [seconds / 60, 'minute']
          : [seconds, 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/**
 * The supervisors to tell now that the routing is at `level`: each rule's once, when the level first
 * reaches its threshold. Returns the events and every rule told so far.
 */
export function supervisorNotifications(
  routingId: string,
  pending: RuleSetEvaluation['notifications'],
  level: EscalationLevel,
  notified: readonly string[],
): { events: OutboxEvent[]; notified: string[] } {
  const due = dueNotifications(pending, level).filter((notification) => !notified.includes(notification.rule_id));
  return {
    events: due.map((notification) => ({
      event: 'escalation.supervisor_notified',
      data: {
        routing_id: routingId,
        rule_id: notification.rule_id,
        notification_threshold: notification.notification_threshold,
        escalation_level: level,
      },
    })),
    notified: [...notified, ...due.map((notification) => notification.rule_id)],
  };
}

/**
 * The provenance actor of whoever asked for an escalation: a person with the credential that authenticated them;
 * a credential that authenticates no person is recorded as recordedBy records reference data: the core acted, at
 * the request of that principal (its kind and id).
 */
export function requesterActor(requestedBy: {
  type: 'ai_agent' | 'human' | 'principal';
  did: string;
  agent_id?: string | undefined;
  person?: HumanActor | undefined;
  principal?: { kind: string; id: string } | undefined;
}): ProvenanceActor {
  if (requestedBy.person) return humanProvenanceActor(requestedBy.person);
  if (requestedBy.type === 'principal') {
    const principal = requestedBy.principal;
    return {
      type: 'orch_core',
      did: ORCH_CORE_DID,
      ...(principal ? { instance_id: principal.id, principal: { kind: principal.kind, id: principal.id } } : {}),
    };
  }
  return {
    type: requestedBy.type,
    did: requestedBy.did,
    ...(requestedBy.agent_id ? { agent_id: requestedBy.agent_id } : {}),
  };
}

/** The actor of an agent's own report. */
export function agentActor(agentId: string): ProvenanceActor {
  return { type: 'ai_agent', agent_id: agentId, did: agentDid(agentId) };
}

/**
 * Why a reviewer may not resolve the routing as it stands, if they may not: only while a human holds it
 * (in progress, assigned to a human), and only a reviewer on its escalation chain.
 */
export function resolutionRefusal(
  routing: {
    routing_id: string;
    status: string;
    assigned_to?: { type: string } | null | undefined;
    escalation_chain: ReadonlyArray<{ did: string }>;
  },
  reviewerDid: string,
): { code: 'routing_not_awaiting_review' | 'reviewer_not_assigned'; detail: string } | undefined {
  if (routing.status !== 'in_progress' || routing.assigned_to?.type !== 'human') {
    return {
      code: 'routing_not_awaiting_review',
      detail: `Routing ${routing.routing_id} is ${routing.status}, not awaiting review`,
    };
  }
  if (!routing.escalation_chain.some((entry) => entry.did === reviewerDid)) {
    return {
      code: 'reviewer_not_assigned',
      detail: `${reviewerDid} is not a reviewer on the escalation chain of routing ${routing.routing_id}`,
    };
  }
  return undefined;
}
