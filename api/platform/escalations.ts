import { approvalFromRow, listApprovals } from '../../db/approvals';
import { escalationResponse } from '../../domain/approvals/requests';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { respondToApproval } from '../../services/approvals/answers';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  APPROVAL_SORTABLE,
  ApprovalIdParamsSchema,
  ApprovalSchema,
  approvalView,
  EscalationQueueQuerySchema,
  RespondEscalationSchema,
} from '../schemas/approvals';
import { ANSWER_RESPONSES, answeredApproval, approvalReadAhead } from './approval-answers';

/** The escalation queue: the approval requests waiting for a human, per organization. */
export function registerEscalationRoutes(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const queue = routeGroup(api, { tags: ['Escalation queue'], auth: 'platform:read', rateLimit: 'default' });
  queue.list({
    path: '/v1/escalations',
    operationId: 'listEscalationQueue',
    summary: 'The escalation queue: approval requests for human review',
    description:
      'A view over approval requests, oldest first so that the longest wait comes first; status defaults to pending.',
    query: EscalationQueueQuerySchema,
    page: { description: 'A page of approval requests', item: ApprovalSchema, name: 'EscalationQueuePage' },
    sort: { allowed: APPROVAL_SORTABLE, fallback: 'created_at', uniqueKey: 'approval_id' },
    list: ({ query, principal, page }) =>
      listApprovals(deps.db, principal.organization_id, page, { status: query.status, org_did: query.orgDid }),
    view: (row) => approvalView(approvalFromRow(row)),
  });

  queue.route({
    method: 'post',
    path: '/v1/escalations/{approval_id}/respond',
    operationId: 'respondToEscalation',
    summary: 'Answer an item of the escalation queue',
    description:
      'approve and reject answer the approval request; approved_with_modifications approves it with modifications (a JSON object of ' +
      'parameters, checked like modified_params); request_changes rejects it as it stands, with the notes saying what to change. ' +
      'Like respond, a request that is no longer pending is 409, and only a signed-in person answers, as themself (responded_by omitted or ' +
      'their DID), a request addressed to an approver only that approver or their delegate (an agent whose delegation token from the person ' +
      `holds ${HUMAN_ACT_CAPABILITIES.respond_escalation}); never by its requester or anyone acting for them (403 requester_may_not_answer).`,
    auth: 'platform:write',
    request: { params: ApprovalIdParamsSchema, body: RespondEscalationSchema },
    responses: ANSWER_RESPONSES,
    readAhead: approvalReadAhead(deps.db),
    handler: async ({ params, body, principal, readAhead }) => {
      const mapped = escalationResponse(body);
      if (!mapped.ok)
        throw new Problem('validation_failed', `${mapped.field} ${mapped.message}`, {
          errors: [{ field: mapped.field, code: 'invalid_value', message: mapped.message }],
        });
      const answer = { ...mapped.response, responded_by: body.responded_by };
      return {
        status: 200,
        body: answeredApproval(
          await respondToApproval(deps, params.approval_id, principal, answer, 'respond_escalation', await readAhead),
        ),
      };
    },
  });
}
