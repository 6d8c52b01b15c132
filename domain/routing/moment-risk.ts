/** The second decision moment, risk_evaluation: the risk under the domain's thresholds, against the task's ceilings. */
import { LEVEL_FOR_RISK, type RoutingTask } from './decision';
import type { DecisionMoment, RoutingInputs } from './moment-types';
import { firedReasons, trigger, type Trigger } from './moment-triggers';
import { assessRisk, riskRank, type RiskAssessment } from './risk';

export function riskEvaluation(
  task: RoutingTask,
  inputs: RoutingInputs,
): { risk: RiskAssessment; triggers: Trigger[]; moment: DecisionMoment } {
  const lifeSafety = task.escalation_conditions.life_safety_flag === true;
  const risk = assessRisk({ context: task.context, lifeSafetyFlag: lifeSafety }, inputs.safety.risk_thresholds);
  const byRisk = LEVEL_FOR_RISK[risk.level];
  const max = task.safety_requirements.max_risk_level;
  const triggers = [
    trigger('life_safety', 'escalate', true, 'urgent', lifeSafety, 'life_safety_flag', 'no_life_safety_flag'),
    trigger(
      'max_risk_level',
      'escalate',
      true,
      byRisk,
      max !== undefined && riskRank(risk.level) > riskRank(max),
      'risk_exceeds_max_risk_level',
      max === undefined ? 'no_max_risk_level' : 'risk_within_max_risk_level',
    ),
  ];
  const moment: DecisionMoment = {
    step_id: 'risk_evaluation',
    action: 'risk_evaluated',
    input_data: {
      domain: inputs.domain,
      risk_thresholds: inputs.safety.risk_thresholds,
      max_risk_level: max ?? null,
      life_safety_flag: lifeSafety,
    },
    output_data: { score: risk.score, level: risk.level, factors: risk.factors, triggers: firedReasons(triggers) },
    reasoning: `Risk ${risk.level} (score ${risk.score}) under ${inputs.domain} thresholds${risk.factors.length > 0 ? ` from ${risk.factors.join(', ')}` : ''}`,
  };
  return { risk, triggers, moment };
}
