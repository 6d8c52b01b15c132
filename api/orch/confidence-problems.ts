import { FOURTH_LAW_THRESHOLD } from '../../domain/routing/decision';
import type { ConfidenceAnswer } from '../../services/routing/agent-operations';
import { Problem } from '../problem';

type ConfidenceOutcome = ConfidenceAnswer['outcome'];

/**
 * The problem for an agent that asked to act alone on a task it may not act alone on: its confidence is below
 * the Fourth Law's threshold, a human holds the task (or it waits for one), or its constraints forbid it.
 * Nothing when it may act alone, or did not ask to.
 */
export function actingAloneRefusal(
  report: { task_id: string; proceed_autonomously: boolean },
  confidence: number,
  { outcome, violations }: ConfidenceAnswer,
): Problem | undefined {
  if (report.proceed_autonomously && outcome.fourth_law_triggered) return belowThreshold(confidence, outcome);
  if (report.proceed_autonomously && (outcome.human_assigned || outcome.status === 'queued'))
    return humanHoldsTask(report.task_id, outcome);
  if (violations.length > 0) return constraintsForbid(report.task_id, outcome, violations);
  return undefined;
}

function assignedHuman(outcome: ConfidenceOutcome): string | null {
  return outcome.assigned_to?.type === 'human' ? outcome.assigned_to.did : null;
}

function belowThreshold(confidence: number, outcome: ConfidenceOutcome): Problem {
  const assigned_human = assignedHuman(outcome);
  const holder = assigned_human
    ? `${assigned_human} now holds the task`
    : outcome.status === 'queued'
      ? 'it waits in the queue for a qualified reviewer'
      : 'no reviewer could take the task';
  return new Problem(
    'confidence_below_threshold',
    `Confidence ${confidence} is below ${FOURTH_LAW_THRESHOLD}; ${holder}`,
    {
      // The spec names an agent's confidence ai_confidence, whichever of header or body carried it.
      errors: [
        {
          field: 'ai_confidence',
          code: 'below_threshold',
          message: `must be at least ${FOURTH_LAW_THRESHOLD} to act autonomously`,
        },
      ],
      extensions: {
        routing_id: outcome.routing_id,
        assigned_human,
        escalation: {
          required: true,
          reason: 'ai_confidence_below_threshold',
          suggested_reviewers: outcome.suggested_reviewers,
        },
      },
    },
  );
}

function humanHoldsTask(taskId: string, outcome: ConfidenceOutcome): Problem {
  const assigned_human = assignedHuman(outcome);
  const queued = outcome.status === 'queued';
  const detail = queued
    ? `Task ${taskId} waits in the queue for a qualified human`
    : `A human${assigned_human ? ` (${assigned_human})` : ''} holds task ${taskId}`;
  return new Problem('escalation_required', `${detail}; the agent may not act on it alone`, {
    extensions: {
      routing_id: outcome.routing_id,
      assigned_human,
      escalation: {
        required: true,
        reason: queued ? 'waiting_for_reviewer' : 'human_holds_task',
        suggested_reviewers: assigned_human ? [assigned_human] : [],
      },
    },
  });
}

function constraintsForbid(
  taskId: string,
  outcome: ConfidenceOutcome,
  violations: ConfidenceAnswer['violations'],
): Problem {
  const reasons = violations.map((violation) => violation.reason).join(', ');
  return new Problem('safety_violation', `The agent’s constraints forbid acting alone on task ${taskId}: ${reasons}`, {
    extensions: {
      routing_id: outcome.routing_id,
      violations,
      escalation: { required: true, reason: violations[0]!.reason, suggested_reviewers: [] },
    },
  });
}
