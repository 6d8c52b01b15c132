/**
 * What a request's deadline does, as the request chose it (on_expiry; absent: reject, as requests did before
 * they could choose). Every outcome is one provenance record and an approval.expired event whose data names
 * on_expiry and expiry_outcome, so a consumer never takes a timeout for a human's "no".
 */
import { ORCH_CORE_DID, type ProvenanceActor } from '../provenance/records';
import type { ApprovalStatus, ExpiryAction } from './requests';
import type { ApprovalTransition } from './steps';

/** What the expiry reads of a request as it stands. */
export interface ExpiryFacts {
  approval_id: string;
  status: ApprovalStatus;
  approver_passport_id?: string | undefined;
  on_expiry?: ExpiryAction | undefined;
  escalate_to?: readonly string[] | undefined;
  escalation_level?: number | undefined;
  created_at: string;
  expires_at: string;
}

const core: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

/**
 * Each level of an escalation waits as long as the request's first lifetime, counted from the deadline before,
 * so the deadlines stay on one grid however late a timer fired.
 */
export function nextDeadlineMs(escalationLevel: number, createdMs: number, expiresMs: number): number {
  return expiresMs + (expiresMs - createdMs) / (escalationLevel + 1);
}

/**
 * The deadline's transition: what on_expiry says, with the last level of an escalation rejecting. `nextDeadline`:
 * the deadline an escalation gives the next level (nextDeadlineMs).
 */
export function expiryTransition(request: ExpiryFacts, nextDeadline: string): ApprovalTransition {
  const action = request.on_expiry ?? 'reject';
  const level = request.escalation_level ?? 0;
  const next = action === 'escalate' ? request.escalate_to?.[level] : undefined;
  const base = { actor: core, event: 'approval.expired' as const };
  if (next !== undefined) {
    const expires_at = nextDeadline;
    return {
      ...base,
      step_id: `escalated:${level + 1}`,
      action: 'approval_escalated',
      reasoning: `No answer from ${request.approver_passport_id ?? 'the approver'} by ${request.expires_at}: escalated to ${next} (level ${level + 1}), who has until ${expires_at}`,
      changes: { expiry_outcome: 'escalated', approver_passport_id: next, escalation_level: level + 1, expires_at },
    };
  }
  if (action === 'hold')
    return {
      ...base,
      step_id: 'held',
      action: 'approval_held',
      reasoning: `No answer by ${request.expires_at}: held open for a human (on_expiry hold); it is not decided`,
      changes: { expiry_outcome: 'held' },
    };
  if (action === 'approve')
    return {
      ...base,
      step_id: 'expired',
      action: 'approval_expired',
      reasoning: `No answer by ${request.expires_at}: approved, as the request asked for its expiry (on_expiry approve); no human approved it`,
      changes: {
        status: 'approved',
        expiry_outcome: 'approved',
        responded_by: ORCH_CORE_DID,
        responded_at: request.expires_at,
      },
    };
  const exhausted =
    action === 'escalate' ? ` after ${level} escalation${level === 1 ? '' : 's'}, with no level left` : '';
  return {
    ...base,
    step_id: 'expired',
    action: 'approval_expired',
    reasoning: `No answer by ${request.expires_at}${exhausted}: rejected by its expiry (on_expiry ${action}); no human rejected it`,
    changes: { status: 'expired', expiry_outcome: 'rejected' },
  };
}

/** Whether a pending request still takes answers: before its deadline, or held open past it. */
export const takesAnswersAt = (
  request: { expiry_outcome?: string | undefined },
  nowMs: number,
  deadlineMs: number,
): boolean => request.expiry_outcome === 'held' || nowMs < deadlineMs;

/** An expiry as its creator chose it: escalate names whom to escalate to, a single approver's request only. */
export function expiryProblems(body: {
  requester_passport_id: string;
  approvers?: readonly string[] | undefined;
  on_expiry?: ExpiryAction | undefined;
  escalate_to?: readonly string[] | undefined;
}): { field: string; code: string; message: string }[] {
  const escalates = body.on_expiry === 'escalate';
  if (!escalates)
    return body.escalate_to === undefined
      ? []
      : [{ field: 'escalate_to', code: 'unexpected', message: 'is only for on_expiry escalate' }];
  if (body.escalate_to === undefined)
    return [{ field: 'escalate_to', code: 'required', message: 'on_expiry escalate needs whom to escalate to' }];
  if (body.approvers !== undefined)
    return [
      { field: 'on_expiry', code: 'conflict', message: 'a quorum request’s approvers are named: it cannot escalate' },
    ];
  if (body.escalate_to.includes(body.requester_passport_id))
    return [{ field: 'escalate_to', code: 'requester', message: 'may not include the requester' }];
  return [];
}
