/** The triggers each decision moment yields: what fired, how it settles the routing, and at which level. */
import type { RoutingFacts } from '../rules/conditions';
import type { EscalationLevel, RoutingTask } from './decision';
import type { RiskAssessment } from './risk';

export interface Trigger {
  rule_id: string;
  effect: 'escalate' | 'confirm';
  triggered: boolean;
  reason: string;
  level: EscalationLevel;
  /** A safety boundary: when it triggers, a constraint is not met. */
  boundary: boolean;
}

export const trigger = (
  rule_id: string,
  effect: Trigger['effect'],
  boundary: boolean,
  level: EscalationLevel,
  when: boolean,
  reason: string,
  otherwise: string,
): Trigger => ({
  rule_id,
  effect,
  boundary,
  level,
  triggered: when,
  reason: when ? reason : otherwise,
});

/** The reasons of the triggers that fired, as a moment records them. */
export const firedReasons = (triggers: readonly Trigger[]): string[] =>
  triggers.filter((t) => t.triggered).map((t) => t.reason);

/** The facts escalation rules and safety boundaries are judged on. */
export function routingFactsOf(task: RoutingTask, domain: string, risk: RiskAssessment): RoutingFacts {
  return {
    task_type: task.task_type,
    domain,
    risk_level: risk.level,
    ai_confidence: task.ai_confidence,
    context: task.context,
  };
}
