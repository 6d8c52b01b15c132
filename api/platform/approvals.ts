import { approvalFromRow, findApprovalById, listApprovals } from '../../db/approvals';
import { simpleResponse } from '../../domain/approvals/requests';
import { approvalDecided } from '../../domain/tasks/decision-waits';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import { createApproval, type PlatformServiceDeps } from '../../services/approvals/approvals';
import { cancelApproval, respondToApproval } from '../../services/approvals/answers';
import { MAX_DECISION_WAIT_SECONDS, type DecisionWaits } from '../../services/decisions/waits';
import { grants, type Principal } from '../../services/identity/scopes';
import { resourceId } from '../../lib/ids';
import { readAfterWait } from '../decision-wait';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  APPROVAL_SORTABLE,
  ApprovalIdParamsSchema,
  ApprovalSchema,
  approvalView,
  CancelApprovalSchema,
  CancelledApprovalSchema,
  CreateApprovalSchema,
  isFullResponse,
  ListApprovalsQuerySchema,
  RespondApprovalSchema,
} from '../schemas/approvals';
import { DecisionWaitQuerySchema } from '../schemas/decision-wait';
import { ANSWER_RESPONSES, answeredApproval, approvalReadAhead, CLAIM_RESPONSES } from './approval-answers';

type ApprovalRouteDeps = PlatformServiceDeps & { decisions: DecisionWaits };

/** Approval requests: created, listed and read (a read may wait for the decision), then answered or cancelled. */
export function registerApprovalRoutes(api: ApiBuilder, deps: ApprovalRouteDeps): void {
  const approvals = routeGroup(api, { tags: ['Approvals'], auth: 'platform:read', rateLimit: 'default' });
  registerCreateApproval(approvals, deps);
  registerApprovalReads(approvals, deps);
  registerRespond(approvals, deps);
  registerCancel(approvals, deps);
}

function registerCreateApproval(approvals: RouteGroup, deps: ApprovalRouteDeps): void {
  approvals.route({
    method: 'post',
    path: '/v1/approvals',
    operationId: 'createApproval',
    summary: 'Ask a human to approve an action',
    description:
      'Starts the approval’s workflow, which waits for a response, a cancel, or expires_at (a durable timer: the request expires even if ' +
      'no worker was up at that moment). Answers once the request is recorded in the ledger and visible in lists. The requested record names ' +
      'the caller as its credential proves it, whatever requester_passport_id says: a signed-in person as human, an agent holding their ' +
      'delegation token, or a token that authenticates no person, as ai_agent.',
    auth: 'platform:write',
    request: { body: CreateApprovalSchema },
    responses: {
      201: {
        description: 'The pending request',
        schema: ApprovalSchema,
        headers: { Location: { description: 'The request’s URL' } },
      },
    },
    handler: async ({ req, body, principal }) => {
      const approval_id = resourceId('apr', principal.id, req.get('idempotency-key'));
      const outcome = await createApproval(
        deps,
        { approval_id, requested_by: principal.id, organization_id: principal.organization_id },
        body,
        principal,
      );
      if (!outcome.ok && 'code' in outcome) throw new Problem(outcome.code, outcome.detail);
      if (!outcome.ok)
        throw new Problem('validation_failed', 'The approval request cannot be created as given', {
          errors: outcome.errors,
        });
      return {
        status: 201,
        body: approvalView(outcome.approval),
        headers: { Location: `/v1/approvals/${approval_id}` },
      };
    },
  });
}

/**
 * What a signed-in person (a session that does not administer the platform) lists: only the requests naming
 * them, as approver, quorum approver or requester; an administrator's or a service's credential lists all.
 */
function personScope(principal: Principal): string[] | undefined {
  const { actor } = principal;
  if (principal.kind !== 'session' || !actor || grants(principal.scopes, 'platform:admin')) return undefined;
  return [actor.did, actor.passport_id];
}

function registerApprovalReads(approvals: RouteGroup, deps: ApprovalRouteDeps): void {
  approvals.list({
    path: '/v1/approvals',
    operationId: 'listApprovals',
    summary: 'List approval requests',
    description:
      'Newest first by default; filters combine (approver matches a quorum request’s approvers too). A signed-in person ' +
      '(a session without platform:admin) lists only the requests naming them as approver, quorum approver or requester. ' +
      'The cursor is opaque and stable while requests are added.',
    query: ListApprovalsQuerySchema,
    page: { description: 'A page of approval requests', item: ApprovalSchema, name: 'ApprovalRequestPage' },
    sort: { allowed: APPROVAL_SORTABLE, fallback: '-created_at', uniqueKey: 'approval_id' },
    list: ({ query, principal, page }) =>
      listApprovals(deps.db, principal.organization_id, page, { ...query, naming: personScope(principal) }),
    view: (row) => approvalView(approvalFromRow(row)),
  });

  approvals.route({
    method: 'get',
    path: '/v1/approvals/{approval_id}',
    operationId: 'getApproval',
    summary: 'Read an approval request',
    description:
      `With ?wait=N (seconds, at most ${MAX_DECISION_WAIT_SECONDS}) the read waits for the decision instead of being polled: it answers as soon as the ` +
      'request is no longer pending (approved, rejected, cancelled, expired or failed), or, when the wait ends first, with the request still ' +
      'pending. Either way the body is the same as a plain read, from the same committed state; any API instance is woken by the change ' +
      '(PostgreSQL NOTIFY), and re-reads every 2 s besides. A signed-in person (a session without platform:admin) reads only the requests ' +
      'the list shows them: naming them as approver, quorum approver or requester; any other answers 404 like an unknown id.',
    request: { params: ApprovalIdParamsSchema, query: DecisionWaitQuerySchema },
    responses: {
      200: {
        description: 'The approval request: decided, or, after a wait that ended first, still pending',
        schema: ApprovalSchema,
      },
      404: {
        description:
          'approval_not_found: no such request in your organization, or, for a signed-in person (a session without platform:admin), ' +
          'one that does not name them as approver, quorum approver or requester (as the list scopes them; 404, not 403, so that it does not leak)',
      },
    },
    handler: async ({ res, params, query, principal }) => {
      const row = await readAfterWait(res, deps.decisions, {
        subject: 'approval',
        id: params.approval_id,
        seconds: query.wait,
        read: () => findApprovalById(deps.db, principal.organization_id, params.approval_id, personScope(principal)),
        decided: (found) => approvalDecided(found.status),
      });
      if (!row) throw new Problem('approval_not_found', `No approval request ${params.approval_id}`);
      return { status: 200, body: approvalView(approvalFromRow(row)) };
    },
  });
}

function registerRespond(approvals: RouteGroup, deps: ApprovalRouteDeps): void {
  approvals.route({
    method: 'post',
    path: '/v1/approvals/{approval_id}/respond',
    operationId: 'respondToApproval',
    summary: 'Approve or reject a pending request',
    description:
      'Claimed in Postgres by one conditional write, then signalled to the approval’s workflow: exactly one answer wins, and an answer to a request that is no longer pending ' +
      '(answered, cancelled, expired, or past expires_at) is 409. Full variant: decision approved|rejected, responded_by, comment, ' +
      'modified_params (checked against params_schema). Simplified variant: decision approve|reject and reason. ' +
      'Only a signed-in person answers (a session token from a passkey or device key; or an agent with a delegation token from the person ' +
      `that holds ${HUMAN_ACT_CAPABILITIES.respond_approval}), as themself: ` +
      'responded_by may be omitted, and naming anyone else is 403. A request addressed to an ' +
      'approver (approver_passport_id) is answered only by that approver or their delegate. Separation of duties: nobody answers a request ' +
      'of their own (403 requester_may_not_answer): not its requester, the credential or person that made it, nor an agent acting for them. ' +
      'The provenance record names the Passport and the credential. A quorum request (approvers, required_approvals) takes one vote ' +
      'from each named approver (403 not_the_approver for anyone else, 409 already_voted for a second vote): it is approved at ' +
      'required_approvals approvals, and rejected as soon as that many can no longer be reached; until then each vote is recorded ' +
      '(votes, approvals_needed; event approval.voted) and the request stays pending. A quorum vote carries no modified_params.',
    auth: 'platform:write',
    request: { params: ApprovalIdParamsSchema, body: RespondApprovalSchema },
    responses: ANSWER_RESPONSES,
    readAhead: approvalReadAhead(deps.db),
    handler: async ({ params, body, principal, readAhead }) => {
      const answer = isFullResponse(body)
        ? {
            decision: body.decision,
            response_kind: body.decision,
            responded_by: body.responded_by,
            comment: body.comment,
            modified_params: body.modified_params,
          }
        : simpleResponse(body.decision, body.reason);
      return {
        status: 200,
        body: answeredApproval(
          await respondToApproval(deps, params.approval_id, principal, answer, 'respond_approval', await readAhead),
        ),
      };
    },
  });
}

function registerCancel(approvals: RouteGroup, deps: ApprovalRouteDeps): void {
  approvals.route({
    method: 'post',
    path: '/v1/approvals/{approval_id}/cancel',
    operationId: 'cancelApproval',
    summary: 'Cancel a pending request',
    description:
      'Claimed like respond: 409 when the request is no longer pending. A signed-in person cancels, as themself (cancelled_by omitted or ' +
      'their DID); a request addressed to an approver only the approver or the requester. An agent cancels for a person with their delegation ' +
      `token holding ${HUMAN_ACT_CAPABILITIES.cancel_approval} (approvals:request, which asks for approvals, does not imply it).`,
    auth: 'platform:write',
    request: { params: ApprovalIdParamsSchema, body: CancelApprovalSchema },
    responses: {
      200: { description: 'The cancelled request, with a message', schema: CancelledApprovalSchema },
      403: { description: 'person_required, actor_mismatch, not_the_approver or delegation_not_covering' },
      ...CLAIM_RESPONSES,
    },
    readAhead: approvalReadAhead(deps.db),
    handler: async ({ params, body, principal, readAhead }) => {
      const approval = answeredApproval(
        await cancelApproval(deps, params.approval_id, principal, body, await readAhead),
      );
      return {
        status: 200,
        body: {
          ...approval,
          message: `Approval ${params.approval_id} was cancelled by ${approval.cancelled_by ?? principal.subject}`,
        },
      };
    },
  });
}
