import { FOURTH_LAW_THRESHOLD } from '../../domain/routing/decision';
import type { ConfidenceAnswer } from '../../services/routing/agent-operations';
import { Problem } from '../problem';

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
  const assigned_human = outcome.assigned_to?.type === 'human' ? outcome.assigned_to.did : null;
  const queued = outcome.status === 'queued';
  if (report.proceed_autonomously && outcome.fourth_law_triggered) {
    const holder = assigned_human
      ? `${assigned_human} now holds the task`
      : queued
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
  if (report.proceed_autonomously && (outcome.human_assigned || queued)) {
    const detail = queued
      ? `Task ${report.task_id} waits in the queue for a qualified human`
      : `A human${assigned_human ? ` (${assigned_human})` : ''} holds task ${report.task_id}`;
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
  if (violations.length > 0) {
    return new Problem(
      'safety_violation',
      `The agent’s constraints forbid acting alone on task ${report.task_id}: ${violations.map((v) => v.reason).join(', ')}`,
      {
        extensions: {
          routing_id: outcome.routing_id,
          violations,
          escalation: { required: true, reason: violations[0]!.reason, suggested_reviewers: [] },
        },
      },
    );
  }
  return undefined;
}
