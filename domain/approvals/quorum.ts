/**
 * Quorum approvals: a request may name N approvers (distinct persons) and require M of them. Each named
 * person votes once; the request is approved once M have approved, and rejected as soon as M can no longer be
 * reached (more than N − M have rejected), so a 2-of-3 request survives one rejection and falls at the second.
 * The requester and their delegates never hold a seat (requests.ts selfAnswerRefusal refuses them).
 */
import type { ApprovalDecision } from './requests';

/** One person's vote on a quorum request, as the request keeps it and its provenance record shows it. */
export interface ApprovalVote {
  /** The DID of the seat the vote fills: the named approver, or whoever covers for them. */
  approver: string;
  /** The person who voted: one vote per Passport, whatever DID they act under. */
  passport_id: string;
  decision: ApprovalDecision;
  comment?: string | undefined;
  /** The named approver this one covers for, when the seat was handed over by a cover. */
  covering_for?: string | undefined;
  voted_at: string;
  /** The ledger transaction of the vote's record. */
  provenance_id: string;
}

/** What the quorum rules read of a request. */
export interface QuorumFacts {
  approval_id: string;
  approvers?: readonly string[] | undefined;
  required_approvals?: number | undefined;
  votes?: readonly ApprovalVote[] | undefined;
  /** Seat DID → the named approver it covers for. */
  covering_for?: Readonly<Record<string, string>> | undefined;
}

export type QuorumRequest = QuorumFacts & { approvers: readonly string[]; required_approvals: number };

export const isQuorum = (approval: QuorumFacts): approval is QuorumRequest =>
  approval.approvers !== undefined && approval.approvers.length > 0 && approval.required_approvals !== undefined;

const count = (votes: readonly ApprovalVote[], decision: ApprovalDecision) =>
  votes.filter((vote) => vote.decision === decision).length;

/** How many more approvals the request needs (0 once it has them). */
export function approvalsNeeded(
  approval: QuorumRequest,
  votes: readonly ApprovalVote[] = approval.votes ?? [],
): number {
  return Math.max(0, approval.required_approvals - count(votes, 'approved'));
}

/** Where the votes leave the request: approved at M approvals, rejected once M is out of reach, else still pending. */
export function quorumOutcome(approval: QuorumRequest, votes: readonly ApprovalVote[]): ApprovalDecision | 'pending' {
  if (count(votes, 'approved') >= approval.required_approvals) return 'approved';
  const stillOpen = approval.approvers.length - votes.length;
  if (count(votes, 'approved') + stillOpen < approval.required_approvals) return 'rejected';
  return 'pending';
}

export type VoteRefusal =
  { code: 'not_the_approver'; detail: string } | { code: 'already_voted'; detail: string; voted: ApprovalVote };

/** Why this person may not vote: they hold no seat, or they (the same Passport, or the same seat) have voted already. */
export function voteRefusal(
  approval: QuorumRequest,
  voter: { did: string; passport_id: string },
): VoteRefusal | undefined {
  const seat = seatOf(approval, voter);
  if (seat === undefined)
    return {
      code: 'not_the_approver',
      detail: `Approval ${approval.approval_id} needs ${approval.required_approvals} of ${approval.approvers.join(', ')}; ${voter.did} is none of them`,
    };
  const voted = (approval.votes ?? []).find((vote) => vote.passport_id === voter.passport_id || vote.approver === seat);
  if (voted)
    return {
      code: 'already_voted',
      detail: `${voter.did} already voted ${voted.decision} on approval ${approval.approval_id} at ${voted.voted_at}; each approver votes once`,
      voted,
    };
  return undefined;
}

/** The seat (a named approver's DID) a person fills, by DID or by Passport id as older requests name people. */
export function seatOf(approval: QuorumRequest, voter: { did: string; passport_id: string }): string | undefined {
  return approval.approvers.find((approver) => approver === voter.did || approver === voter.passport_id);
}

export type QuorumProblem = { field: string; code: string; message: string };

/**
 * A quorum as its creator names it: distinct approvers, none of them the requester, and an M between 1 and N;
 * not beside a single approver_passport_id. M defaults to every named approver.
 */
export function quorumProblems(body: {
  requester_passport_id: string;
  approver_passport_id?: string | undefined;
  approvers?: readonly string[] | undefined;
  required_approvals?: number | undefined;
}): QuorumProblem[] {
  const { approvers, required_approvals: required } = body;
  if (approvers === undefined)
    return required === undefined
      ? []
      : [{ field: 'required_approvals', code: 'unexpected', message: 'is only for a request naming approvers' }];
  const problems: QuorumProblem[] = [];
  if (body.approver_passport_id !== undefined)
    problems.push({
      field: 'approver_passport_id',
      code: 'conflict',
      message: 'name one approver_passport_id, or approvers with required_approvals, not both',
    });
  if (new Set(approvers).size !== approvers.length)
    problems.push({ field: 'approvers', code: 'duplicate', message: 'must name distinct persons' });
  if (approvers.includes(body.requester_passport_id))
    problems.push({ field: 'approvers', code: 'requester', message: 'may not include the requester' });
  if (required !== undefined && (required < 1 || required > approvers.length))
    problems.push({
      field: 'required_approvals',
      code: 'out_of_range',
      message: `must be between 1 and the ${approvers.length} approvers named`,
    });
  return problems;
}

/** A quorum request as it opens: no votes yet, every required approval still needed. */
export function openingQuorum(request: QuorumFacts): { votes?: ApprovalVote[]; approvals_needed?: number } {
  return isQuorum(request) ? { votes: [], approvals_needed: request.required_approvals } : {};
}

/** "Bea, covering for Ada": who acted, and for whom when the seat was handed over. */
export function actingFor(did: string, coveringFor: string | undefined): string {
  return coveringFor ? `${did}, covering for ${coveringFor}` : did;
}
