import { needsHuman, type RoutingDecisionKind } from './decision';

export const ROUTING_STATUSES = ['pending', 'queued', 'in_progress', 'completed', 'expired'] as const;
/**
 * pending      the decision is being made
 * queued       a human is needed but no available reviewer qualifies: it waits unassigned until one does
 *              (or an admin assigns one), its escalation level rising on each timeout
 * in_progress  a human is assigned and the routing waits for their resolution
 * completed    decided autonomously, or resolved by a human
 * expired      the last level of the escalation chain timed out with no resolution
 */
export type RoutingStatus = (typeof ROUTING_STATUSES)[number];

/** The four decision moments of the spec, then what a human-routed task goes through. */
export const DECISION_STEPS = [
  'capability_assessment',
  'risk_evaluation',
  'context_analysis',
  'routing_decision',
] as const;
export const HUMAN_STEPS = ['assignment', 'human_review'] as const;

export interface RoutingProgress {
  steps_completed: number;
  steps_total: number;
  current_step: string;
}

export function routingProgress(status: RoutingStatus, decision: RoutingDecisionKind | undefined): RoutingProgress {
  const human = decision !== undefined && needsHuman(decision);
  const steps_total = DECISION_STEPS.length + (human ? HUMAN_STEPS.length : 0);
  switch (status) {
    case 'pending':
      return { steps_completed: 0, steps_total, current_step: DECISION_STEPS[0] };
    case 'in_progress':
      return { steps_completed: DECISION_STEPS.length + 1, steps_total, current_step: 'human_review' };
    case 'completed':
      return { steps_completed: steps_total, steps_total, current_step: 'completed' };
    case 'expired':
      return { steps_completed: DECISION_STEPS.length + 1, steps_total, current_step: 'expired' };
    case 'queued':
      return { steps_completed: DECISION_STEPS.length, steps_total, current_step: HUMAN_STEPS[0] };
  }
}
