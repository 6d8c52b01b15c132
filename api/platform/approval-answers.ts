import type { Knex } from 'knex';
import { readApprovalAhead, type AnswerOutcome } from '../../services/approvals/answers';
import { Problem } from '../problem';
import type { ReadAheadContext } from '../route';
import { ApprovalSchema, approvalView } from '../schemas/approvals';

/** The answer of a respond or cancel, or the problem it is. */
export function answeredApproval(outcome: AnswerOutcome) {
  if (outcome.ok) return approvalView(outcome.approval);
  if (outcome.code === 'invalid_modified_params')
    throw new Problem('validation_failed', 'modified_params do not fit the request’s schema', {
      errors: outcome.errors,
    });
  throw new Problem(outcome.code, outcome.detail);
}

/** The readAhead of a route that answers the request in its path: the request, read while the call is counted. */
export const approvalReadAhead =
  (db: Knex) =>
  ({ params, principal }: ReadAheadContext) =>
    readApprovalAhead(db, principal.organization_id, params.approval_id ?? '');

/** What answering a request may meet, whichever route answers it (respond, or the escalation queue's respond). */
export const CLAIM_RESPONSES = {
  404: { description: 'No such approval request' },
  409: {
    description:
      'approval_not_pending: the request is no longer pending; already_voted: this person has voted on the quorum request already',
  },
};

export const ANSWER_RESPONSES = {
  200: { description: 'The answered request', schema: ApprovalSchema },
  403: {
    description:
      'person_required, actor_mismatch, not_the_approver, requester_may_not_answer or delegation_not_covering',
  },
  ...CLAIM_RESPONSES,
};
