import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { HumanActor } from '../domain/identity/human-acts';
import type { RecoveryRequestState } from './aggregates/recovery-request';
import { PlatformStatusKey, RecoveryPassportKey } from './search-attributes';

export type { RecoveryRequestState } from './aggregates/recovery-request';

/**
 * One guardian recovery: the workflow takes the request as the recovery service recorded it (row, provenance,
 * event, pending start in one transaction) and sees it through. Workflow id = request_id.
 */
export const RECOVER_PASSPORT_WORKFLOW = 'recoverPassportWorkflow';
export type RecoverPassportWorkflow = (opened: RecoveryRequestState) => Promise<RecoveryRequestState>;

/** A signed-in guardian's approval, bound to the request by its nonce and to the new credential by its hash. */
export interface ApproveRecoveryInput {
  guardian: HumanActor;
  /** The instant the guardian's client stated (checked for staleness by the service). */
  timestamp: string;
  nonce: string;
  new_credential_hash: string;
}

/** The owner, signed in with a credential still valid, cancels. */
export interface CancelRecoveryInput {
  owner: HumanActor;
}

/** A confirmation code attempt, as its HMAC (the code itself never reaches the history). */
export interface ConfirmRecoveryInput {
  code_hmac: string;
  /** The principal that executes, recorded with the attempt. */
  principal: string;
}

export type ConfirmRecoveryOutcome =
  | { ok: true; state: RecoveryRequestState }
  | { ok: false; code: 'recovery_code_invalid' | 'recovery_code_attempts_exhausted'; attempts_left: number };

/** Refused with a recovery_* failure type of contracts/failures.ts (approvalRefusal in domain/recovery/requests.ts). */
export const approveRecoveryUpdate = defineUpdate<RecoveryRequestState, [ApproveRecoveryInput]>('approve');
/** Refused with recovery_not_cancellable unless the request is collecting approvals or time-locked. */
export const cancelRecoveryUpdate = defineUpdate<RecoveryRequestState, [CancelRecoveryInput]>('cancel');
/** Refused with recovery_not_awaiting_confirmation unless the code was sent and is still valid. */
export const confirmRecoveryUpdate = defineUpdate<ConfirmRecoveryOutcome, [ConfirmRecoveryInput]>('confirm');
export const recoveryQuery = defineQuery<RecoveryRequestState>('status');

/** The search attributes that follow a request: `WorkflowType = "recoverPassportWorkflow" AND HandoffPlatformStatus = "time_locked"`. */
export function recoverySearchAttributes(state: Pick<RecoveryRequestState, 'status' | 'passport_id'>) {
  return [
    { key: PlatformStatusKey, value: state.status },
    { key: RecoveryPassportKey, value: state.passport_id },
  ];
}
