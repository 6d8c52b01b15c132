import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalResponse } from '../domain/approvals/requests';
import type { HumanActor } from '../domain/identity/human-acts';
import type { ApprovalRequest, ApprovalState } from './aggregates/approval';

export type { ApprovalRequest, ApprovalState } from './aggregates/approval';

export interface RespondInput extends ApprovalResponse {
  responded_by: string;
  /** The authenticated caller, recorded beside the DID the body names. */
  principal: string;
  /** The signed-in person who answers, with the credential that authenticated them (absent in histories from before). */
  actor?: HumanActor | undefined;
}

export interface CancelApprovalInput {
  cancelled_by: string;
  reason?: string | undefined;
  principal: string;
  /** The signed-in person who cancels, with the credential that authenticated them (absent in histories from before). */
  actor?: HumanActor | undefined;
}

/**
 * The workflow's type name and signature, so that clients start it without loading workflow code. `opened`
 * is the request as the approvals service recorded it (row, provenance, event) before the start; without
 * it (an execution's or a DAG's approval, started as a child) the workflow records the request itself.
 */
export const APPROVAL_WORKFLOW = 'approvalWorkflow';
export type ApprovalWorkflow = (request: ApprovalRequest, opened?: ApprovalState) => Promise<ApprovalState>;

/** Answers once the request is recorded: what its creator (Update-with-Start) is answered with; refused with the failure when it fails. */
export const approvalCreatedUpdate = defineUpdate<ApprovalState>('created');
/**
 * Refused with FAILURE_TYPES.approvalNotPending unless the request is still pending. The service answers by
 * a claim in Postgres and approvalEndedSignal; these Updates remain for requests that were already waiting
 * on them and for their histories' replays.
 */
export const respondUpdate = defineUpdate<ApprovalState, [RespondInput]>('respond');
/** Refused with FAILURE_TYPES.approvalNotPending unless the request is still pending. */
export const cancelApprovalUpdate = defineUpdate<ApprovalState, [CancelApprovalInput]>('cancel');
export const approvalQuery = defineQuery<ApprovalState>('status');
/**
 * The request's ending as claimed in Postgres (services/approvals/claims.ts): a response or a cancel,
 * already recorded with its provenance. The workflow takes the state as recorded and closes.
 */
export const approvalEndedSignal = defineSignal<[ApprovalState]>('ended');
/** Sent to the execution that asked, once the request is recorded, so the execution can answer its caller with it. */
export const approvalRequestedSignal = defineSignal<[string]>('approvalRequested');
