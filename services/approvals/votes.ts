import { transactionIdFor } from '../../db/ledger';
import { isQuorum, voteRefusal } from '../../domain/approvals/quorum';
import { voteTransition, type VoteInput } from '../../domain/approvals/votes';
import type { ApprovalState } from '../../contracts/approval';
import { claimStep, type AnswerOutcome } from './claim-step';
import type { PlatformServiceDeps } from './approvals';

/**
 * A named approver's vote on a quorum request, claimed like an answer: one conditional write on the request as
 * it stands (its version), with the vote's provenance record. The vote that reaches the quorum, or puts it out
 * of reach, ends the request and signals its workflow; any other leaves it pending. Each person votes once: a
 * second vote, even one racing the first, finds the first on the request and is refused (already_voted).
 */
export async function castVote(
  deps: PlatformServiceDeps,
  read: ApprovalState,
  input: VoteInput,
): Promise<AnswerOutcome> {
  const at = new Date().toISOString();
  return claimStep(
    deps,
    read,
    input,
    (current) => {
      if (!isQuorum(current)) throw new Error(`Approval ${current.approval_id} lost its quorum`);
      const refused = voteRefusal(current, input.actor);
      if (refused) return { refused: { code: refused.code, detail: refused.detail } };
      return {
        transition: voteTransition(current, input, at, (stepId) => transactionIdFor(current.approval_id, stepId)),
      };
    },
    at,
  );
}
