/**
 * The transitions of one agent call (queued → processing → completed | failed | cancelled, then its
 * callback): what each changes, who is accountable for it, and the provenance record and event it leaves.
 * The execution workflow only says what happened; what that means is decided here.
 */
import { isFinished, type ExecutionStatus } from './agent-calls';
import type { EventKind } from '../provenance/events';
import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';

/** What the transitions read of an execution. */
export interface ExecutionFacts {
  execution_id: string;
  status: ExecutionStatus;
  agent_id: string;
  agent_uri: string;
  capability_uri: string;
  requester_passport_id: string;
  parameters: Record<string, unknown>;
  current_attempt: number;
  task_id?: string | undefined;
  approval_id?: string | undefined;
  error_json?: Record<string, unknown> | undefined;
}

/** The fields a transition sets on the execution. */
export interface ExecutionChanges {
  status?: ExecutionStatus;
  started_at?: string;
  completed_at?: string;
  result_json?: Record<string, unknown>;
  error_json?: Record<string, unknown>;
  current_attempt?: number;
  progress_percent?: number;
  progress_message?: string;
  cancelled_by?: string;
  cancel_reason?: string;
  callback_success?: boolean;
  callback_attempts?: number;
}

/** The action of each transition's provenance record. */
export type ExecutionAction =
  | 'execution_queued'
  | 'execution_started'
  | `execution_${'completed' | 'failed' | 'cancelled'}`
  | 'callback_delivered'
  | 'callback_failed';

export interface ExecutionTransition {
  step_id: string;
  actor: ProvenanceActor;
  action: ExecutionAction;
  reasoning: string;
  /** Callbacks leave a record but no event. */
  event?: EventKind;
  changes: ExecutionChanges;
}

/** How the work of an execution (its approval, then the agent's call) came to an end. */
export type ExecutionEnding =
  | { kind: 'not_approved'; approval_id: string; approval_status: string }
  /** The approval workflow failed (its request could not be stored). */
  | { kind: 'approval_failed'; approval_id: string; type: string; message: string }
  | { kind: 'answered'; result: Record<string, unknown>; attempt: number }
  | { kind: 'cancelled'; request?: { cancelled_by: string; reason?: string | undefined } | undefined }
  | {
      kind: 'failed';
      message: string;
      type?: string | undefined;
      attempt?: number | undefined;
      status?: number | undefined;
    };

const core: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };
const agentActor = (agent: { agent_uri: string; passport_id: string }): ProvenanceActor => ({
  type: 'ai_agent',
  agent_id: agent.agent_uri,
  did: agent.passport_id,
});

export function queuedTransition(execution: ExecutionFacts): ExecutionTransition {
  return {
    step_id: 'queued',
    actor: core,
    action: 'execution_queued',
    reasoning: `${execution.requester_passport_id} called ${execution.capability_uri} on ${execution.agent_uri}`,
    event: 'execution.queued',
    changes: {},
  };
}

export function startedTransition(execution: ExecutionFacts, at: string): ExecutionTransition {
  return {
    step_id: 'processing',
    actor: core,
    action: 'execution_started',
    reasoning: `Calling ${execution.agent_uri} at its endpoint`,
    event: 'execution.started',
    changes: { status: 'processing', started_at: at },
  };
}

function ending(execution: ExecutionFacts, agent: { agent_uri: string; passport_id: string }, end: ExecutionEnding) {
  switch (end.kind) {
    case 'not_approved':
      return {
        status: 'cancelled' as const,
        actor: core,
        reasoning: `The approval ${end.approval_id} was ${end.approval_status}`,
        changes: {
          error_json: {
            type: `approval_${end.approval_status}`,
            approval_id: end.approval_id,
            message: `The call was not approved: its approval was ${end.approval_status}`,
          },
        },
      };
    case 'approval_failed':
      return {
        status: 'failed' as const,
        actor: core,
        reasoning: `The approval ${end.approval_id} failed: ${end.message}`,
        changes: { error_json: { type: end.type, approval_id: end.approval_id, message: end.message } },
      };
    case 'answered':
      return {
        status: 'completed' as const,
        actor: agentActor(agent),
        reasoning: `${agent.agent_uri} answered on attempt ${end.attempt}`,
        changes: {
          result_json: end.result,
          current_attempt: Math.max(execution.current_attempt, end.attempt),
          progress_percent: 100,
        },
      };
    case 'cancelled':
      return {
        status: 'cancelled' as const,
        actor: end.request ? { type: 'human' as const, did: end.request.cancelled_by } : core,
        reasoning:
          end.request?.reason ?? `Cancelled by ${end.request?.cancelled_by ?? 'a cancellation of the workflow'}`,
        changes: {
          cancelled_by: end.request?.cancelled_by ?? ORCH_CORE_DID,
          ...(end.request?.reason !== undefined ? { cancel_reason: end.request.reason } : {}),
        },
      };
    case 'failed':
      return {
        status: 'failed' as const,
        actor: agentActor(agent),
        reasoning: `${agent.agent_uri} did not complete the call: ${end.message}`,
        changes: {
          current_attempt: Math.max(execution.current_attempt, end.attempt ?? 0),
          error_json: {
            type: end.type ?? 'agent_call_failed',
            message: end.message,
            ...(end.status !== undefined ? { status: end.status } : {}),
          },
        },
      };
  }
}

/** The execution's last transition: completed, failed or cancelled, from how its work ended. */
export function finishedTransition(
  execution: ExecutionFacts,
  agent: { agent_uri: string; passport_id: string },
  end: ExecutionEnding,
  at: string,
): ExecutionTransition {
  const { status, actor, reasoning, changes } = ending(execution, agent, end);
  return {
    step_id: status,
    actor,
    action: `execution_${status}`,
    reasoning,
    event: `execution.${status}`,
    changes: { status, completed_at: at, ...changes },
  };
}

export function callbackTransition(
  url: string,
  outcome: { success: boolean; attempts: number; error?: string | undefined },
): ExecutionTransition {
  return {
    step_id: 'callback',
    actor: core,
    action: outcome.success ? 'callback_delivered' : 'callback_failed',
    reasoning: outcome.success
      ? `${url} took the result on attempt ${outcome.attempts}`
      : `${url} did not take the result in ${outcome.attempts} attempts: ${outcome.error ?? 'no answer'}`,
    changes: { callback_success: outcome.success, callback_attempts: outcome.attempts },
  };
}

/** Progress an agent reports: attempts only move forward. */
export function progressChanges(
  execution: ExecutionFacts,
  report: { attempt: number; progress_percent: number; progress_message?: string | undefined },
): ExecutionChanges {
  return {
    current_attempt: Math.max(execution.current_attempt, report.attempt),
    progress_percent: report.progress_percent,
    ...(report.progress_message !== undefined ? { progress_message: report.progress_message } : {}),
  };
}

/** Why a cancel is refused, or undefined when it is taken. */
export function cancelRefusal(execution: ExecutionFacts, cancelling: boolean): string | undefined {
  if (cancelling) return `Execution ${execution.execution_id} is already being cancelled`;
  if (isFinished(execution.status)) return `Execution ${execution.execution_id} is ${execution.status}`;
  return undefined;
}

/** Why a progress report is refused, or undefined when it is taken: only the running attempt reports. */
export function progressRefusal(execution: ExecutionFacts, cancelling: boolean, attempt: number): string | undefined {
  if (execution.status !== 'processing' || cancelling)
    return `Execution ${execution.execution_id} is ${cancelling ? 'being cancelled' : execution.status}, not processing`;
  if (attempt < execution.current_attempt)
    return `Attempt ${attempt} is over; attempt ${execution.current_attempt} is running`;
  return undefined;
}

/** The provenance record (and event) of a transition, over the execution as the transition left it. */
export function executionRecord(
  execution: ExecutionFacts,
  transition: ExecutionTransition,
  at: string,
): AppendProvenanceInput {
  return {
    entry: {
      subject_id: execution.execution_id,
      step_id: transition.step_id,
      timestamp: at,
      actor: transition.actor,
      action: transition.action,
      input_data: {
        agent_uri: execution.agent_uri,
        capability_uri: execution.capability_uri,
        parameters: execution.parameters,
      },
      output_data: { status: execution.status, ...transition.changes },
      reasoning: transition.reasoning,
    },
    events: transition.event ? [{ event: transition.event, data: executionEventData(execution) }] : [],
  };
}

export function executionEventData(execution: ExecutionFacts): Record<string, unknown> {
  return {
    execution_id: execution.execution_id,
    status: execution.status,
    agent_id: execution.agent_id,
    agent_uri: execution.agent_uri,
    capability_uri: execution.capability_uri,
    task_id: execution.task_id ?? null,
    approval_id: execution.approval_id ?? null,
    ...(execution.error_json ? { error: execution.error_json } : {}),
  };
}
