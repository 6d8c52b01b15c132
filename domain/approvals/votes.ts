/**
 * A vote on a quorum request as a transition: every vote is a provenance record. A vote that leaves the request
 * pending is its own step (`vote:<passport>`, event approval.voted); the vote that decides it is the request's
 * `responded` step, approving or rejecting it like a single approver's answer, with every vote beside it.
 */
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';
import { actingFor, approvalsNeeded, quorumOutcome, seatOf, type ApprovalVote, type QuorumRequest } from './quorum';
import type { ApprovalDecision, ResponseKind } from './requests';
import type { ApprovalTransition } from './steps';

export interface VoteInput {
  decision: ApprovalDecision;
  response_kind: ResponseKind;
  responded_by: string;
  principal: string;
  actor: HumanActor;
  comment?: string | undefined;
}

/** The step a person's vote is recorded under while it does not decide the request. */
export const voteStepId = (passportId: string) => `vote:${passportId}`;

/**
 * The transition of one vote on the request as it stands (the caller has checked voteRefusal). `recordId` names
 * the ledger transaction of a step, so the vote can carry the id of its own record.
 */
export function voteTransition(
  approval: QuorumRequest,
  input: VoteInput,
  at: string,
  recordId: (stepId: string) => string,
): ApprovalTransition {
  const seat = seatOf(approval, input.actor) ?? input.responded_by;
  const coveringFor = approval.covering_for?.[seat];
  const before = approval.votes ?? [];
  const provisional: ApprovalVote = {
    approver: seat,
    passport_id: input.actor.passport_id,
    decision: input.decision,
    voted_at: at,
    provenance_id: '',
  };
  const outcome = quorumOutcome(approval, [...before, provisional]);
  const stepId = outcome === 'pending' ? voteStepId(input.actor.passport_id) : 'responded';
  const vote: ApprovalVote = {
    ...provisional,
    provenance_id: recordId(stepId),
    ...(input.comment !== undefined ? { comment: input.comment } : {}),
    ...(coveringFor !== undefined ? { covering_for: coveringFor } : {}),
  };
  const votes = [...before, vote];
  const needed = approvalsNeeded(approval, votes);
  const tally = `${approval.required_approvals} of ${approval.approvers.length} needed, ${needed} more to approve`;
  const who = actingFor(input.responded_by, coveringFor);
  const common = { step_id: stepId, actor: humanProvenanceActor(input.actor) };
  if (outcome === 'pending')
    return {
      ...common,
      action: `approval_vote_${input.decision}`,
      reasoning: `${who} voted ${input.decision} (${tally})${input.comment ? `: ${input.comment}` : ''}`,
      event: 'approval.voted',
      changes: { votes, approvals_needed: needed },
    };
  return {
    ...common,
    action: `approval_${outcome}`,
    reasoning: `${who} voted ${input.decision}, and the request is ${outcome} (${tally})${input.comment ? `: ${input.comment}` : ''}`,
    event: outcome === 'approved' ? 'approval.approved' : 'approval.rejected',
    changes: {
      status: outcome,
      responded_by: input.responded_by,
      response_kind: input.response_kind,
      responded_at: at,
      ...(input.comment !== undefined ? { response_comment: input.comment } : {}),
      votes,
      approvals_needed: needed,
    },
  };
}
