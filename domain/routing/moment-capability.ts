/** The first decision moment, capability_assessment: can the AI handle the task alone? */
import { agentCapabilityWeight, type AgentProfile } from '../agents/agents';
import type { EscalationLevel, RoutingTask } from './decision';
import type { DecisionMoment } from './moment-types';
import { firedReasons, trigger, type Trigger } from './moment-triggers';

/** The capabilities a registered agent that declares capabilities lacks; others are judged by confidence alone. */
function capabilityGaps(task: RoutingTask, agent: AgentProfile | null): string[] {
  if (!agent || agent.capabilities.length === 0) return [];
  return task.required_capabilities
    .filter((need) => agentCapabilityWeight(agent, need.capability_id) < need.min_weight)
    .map((need) => need.capability_id);
}

function capabilityTriggers(
  task: RoutingTask,
  gaps: readonly string[],
  riskLevel: EscalationLevel,
  confidenceThreshold: number,
): Trigger[] {
  const assessment = task.agent_assessment ?? {};
  const threshold = task.escalation_conditions.uncertainty_threshold;
  return [
    trigger(
      'fourth_law',
      'escalate',
      true,
      riskLevel,
      task.ai_confidence < confidenceThreshold,
      'ai_confidence_below_threshold',
      'ai_confidence_at_or_above_threshold',
    ),
    trigger(
      'uncertainty_threshold',
      'escalate',
      true,
      riskLevel,
      threshold !== undefined && 1 - task.ai_confidence > threshold,
      'uncertainty_above_threshold',
      threshold === undefined ? 'no_uncertainty_threshold' : 'uncertainty_within_threshold',
    ),
    trigger(
      'ai_cannot_handle',
      'escalate',
      false,
      riskLevel,
      assessment.can_handle === false,
      'ai_cannot_handle',
      'ai_can_handle',
    ),
    trigger(
      'agent_requested_escalation',
      'escalate',
      false,
      riskLevel,
      assessment.escalation_recommended === true,
      'agent_requested_escalation',
      'no_escalation_requested',
    ),
    trigger(
      'ai_capability_gap',
      'escalate',
      false,
      riskLevel,
      gaps.length > 0,
      'ai_capability_gap',
      'ai_capabilities_sufficient',
    ),
  ];
}

export function capabilityAssessment(
  task: RoutingTask,
  agent: AgentProfile | null,
  riskLevel: EscalationLevel,
  confidenceThreshold: number,
): { triggers: Trigger[]; moment: DecisionMoment } {
  const gaps = capabilityGaps(task, agent);
  const triggers = capabilityTriggers(task, gaps, riskLevel, confidenceThreshold);
  const fired = firedReasons(triggers);
  const moment: DecisionMoment = {
    step_id: 'capability_assessment',
    action: 'capability_assessed',
    input_data: {
      ai_agent_id: task.ai_agent_id,
      agent_registered: agent !== null,
      ai_confidence: task.ai_confidence,
      required_capabilities: task.required_capabilities,
      agent_assessment: task.agent_assessment ?? {},
    },
    output_data: { ai_can_handle: fired.length === 0, capability_gaps: gaps, triggers: fired },
    reasoning:
      fired.length > 0
        ? `The AI cannot take this alone: ${fired.join(', ')}`
        : `Confidence ${task.ai_confidence} meets the ${confidenceThreshold} threshold and no capability is missing`,
  };
  return { triggers, moment };
}
