import type { Knex } from 'knex';
import { approvalFromRow, findApprovalById, type ApprovalRow } from '../../db/approvals';
import { findDelegation } from '../../db/delegation';
import { answerTransition, type ApprovalEnding } from '../../domain/approvals/steps';
import { isQuorum } from '../../domain/approvals/quorum';
import { paramsSchemaOf, selfAnswerRefusal, type ApprovalMaker } from '../../domain/approvals/requests';
import { approverRefusal, humanActorOf, type HumanActCaller, type HumanActor } from '../../domain/identity/human-acts';
import type { ApprovalState, CancelApprovalInput, RespondInput } from '../../contracts/approval';
import { paramsValidator, type FieldProblem, type PlatformServiceDeps } from './approvals';
import { claimStep, type AnswerOutcome, type StepRefusal } from './claim-step';
import type { AnswerStep } from './claims';
import { castVote } from './votes';

export type { AnswerOutcome } from './claim-step';

/** modified_params against the request's schema (its own, or the shape of its request_data). */
export function checkModifiedParams(
  approval: Pick<ApprovalState, 'params_schema' | 'request_data'>,
  modified: Record<string, unknown>,
): FieldProblem[] {
  const compiled = paramsValidator(approval.params_schema ?? paramsSchemaOf(approval.request_data));
  if (!compiled.ok)
    return [
      { field: 'modified_params', code: 'invalid_schema', message: `the request's params_schema ${compiled.message}` },
    ];
  const result = compiled.validator.safeParse(modified);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    field: ['modified_params', ...issue.path.map(String)].join('.'),
    code: issue.code,
    message: issue.message,
  }));
}

/**
 * Ends a request by a human's answer: claimed in Postgres by the one conditional write that only a pending
 * request before its deadline takes (with its provenance record and event), so exactly one answer ever wins
 * and any other gets approval_not_pending at once. The ended signal commits with the claim and is delivered
 * after the answer (or by the dispatcher, should this process die first): the workflow carries the ending on
 * (the execution or DAG waiting on it) without the person waiting for Temporal.
 */
async function endByAnswer(
  deps: PlatformServiceDeps,
  read: ApprovalState,
  ending: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }>,
  actor: HumanActor,
): Promise<AnswerOutcome> {
  const at = new Date().toISOString();
  return claimStep(deps, read, ending.input, answerStep(ending, actor, at), at);
}

/**
 * A person's answer or cancel as a step on the request it is claimed on, which may be newer than the one read:
 * an escalation that moved the request to another approver meanwhile refuses the one it no longer names.
 */
export function answerStep(
  ending: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }>,
  actor: HumanActor,
  at: string,
): AnswerStep<StepRefusal> {
  return (current) => {
    const refused = approverRefusal(current, actor, ending.kind === 'respond' ? 'answer' : 'cancel');
    if (refused) return { refused: { code: 'not_the_approver', detail: refused.detail } };
    return { transition: answerTransition(ending, at) };
  };
}

/**
 * Who made a request, from the principal that made it: a session (`passport:<id>`) is a person; a delegation
 * token (`dlg:<id>`) its delegator, and the agent that held it; any other credential only itself.
 */
async function approvalMaker(db: Knex, organizationId: string, principalId: string): Promise<ApprovalMaker> {
  const [kind, id] = [principalId.slice(0, principalId.indexOf(':')), principalId.slice(principalId.indexOf(':') + 1)];
  if (kind === 'passport') return { principal_id: principalId, passport_id: id };
  if (kind !== 'dlg') return { principal_id: principalId };
  const delegation = await findDelegation(db, { organization_id: organizationId }, id);
  return {
    principal_id: principalId,
    passport_id: delegation?.passport_id,
    agent_did: delegation?.agent_did ?? undefined,
  };
}

/** A request as read before its answer was looked at (api/route.ts, readAhead): by id, in the caller's organization. */
export interface ApprovalReadAhead {
  approvalId: string;
  organizationId: string;
  row: ApprovalRow | undefined;
}

export async function readApprovalAhead(
  db: Knex,
  organizationId: string,
  approvalId: string,
): Promise<ApprovalReadAhead> {
  return { approvalId, organizationId, row: await findApprovalById(db, organizationId, approvalId) };
}

/** The request to answer: as read ahead when that read is of this id in this organization, else read now. */
async function approvalToAnswer(
  db: Knex,
  organizationId: string,
  approvalId: string,
  ahead: ApprovalReadAhead | undefined,
): Promise<ApprovalRow | undefined> {
  if (ahead?.approvalId === approvalId && ahead.organizationId === organizationId) return ahead.row;
  return findApprovalById(db, organizationId, approvalId);
}

/** An answer as the person gives it: responded_by, when named, must be who they are. */
export type HumanAnswer = Omit<RespondInput, 'responded_by' | 'principal' | 'actor'> & {
  responded_by?: string | undefined;
};

/**
 * A human's answer, claimed in Postgres by one conditional write that only a pending, unexpired request
 * accepts (so there is never a second decision); modified_params must fit the request's schema. Only
 * a signed-in person answers, and a request addressed to an approver only that approver (or their delegate).
 */
export async function respondToApproval(
  deps: PlatformServiceDeps,
  approvalId: string,
  caller: HumanActCaller & {
    id: string;
    organization_id: string;
    actor?: { delegation?: { agent_did?: string | undefined } | undefined } | undefined;
  },
  answer: HumanAnswer,
  act: 'respond_approval' | 'respond_escalation' = 'respond_approval',
  ahead?: ApprovalReadAhead,
): Promise<AnswerOutcome> {
  const acting = humanActorOf(caller, act, answer.responded_by);
  if (!acting.ok) return acting;
  const row = await approvalToAnswer(deps.db, caller.organization_id, approvalId, ahead);
  if (!row) return { ok: false, code: 'approval_not_found', detail: `No approval request ${approvalId}` };
  const approval = approvalFromRow(row);
  const refused = approverRefusal(approval, acting.actor, 'answer');
  if (refused) return refused;
  const answerer = {
    principal_id: caller.id,
    passport_id: acting.actor.passport_id,
    did: acting.actor.did,
    agent_did: caller.actor?.delegation?.agent_did,
  };
  const own = selfAnswerRefusal(
    approval,
    await approvalMaker(deps.db, caller.organization_id, approval.requested_by),
    answerer,
  );
  if (own) return { ok: false, ...own };
  if (answer.modified_params !== undefined) {
    if (isQuorum(approval))
      return {
        ok: false,
        code: 'invalid_modified_params',
        errors: [
          {
            field: 'modified_params',
            code: 'unexpected',
            message: 'a quorum request is approved as asked: its approvers vote on the same parameters',
          },
        ],
      };
    if (answer.decision !== 'approved')
      return {
        ok: false,
        code: 'invalid_modified_params',
        errors: [{ field: 'modified_params', code: 'unexpected', message: 'only an approval carries modified_params' }],
      };
    const errors = checkModifiedParams(approval, answer.modified_params);
    if (errors.length > 0) return { ok: false, code: 'invalid_modified_params', errors };
  }
  const input: RespondInput = {
    ...answer,
    responded_by: answer.responded_by ?? acting.actor.did,
    principal: caller.id,
    actor: acting.actor,
  };
  if (isQuorum(approval)) return castVote(deps, approval, { ...input, actor: acting.actor });
  return endByAnswer(deps, approval, { kind: 'respond', input }, acting.actor);
}

/** A cancel by a signed-in person: of a request addressed to an approver, only by the approver or the requester. */
export async function cancelApproval(
  deps: PlatformServiceDeps,
  approvalId: string,
  caller: HumanActCaller & { id: string; organization_id: string },
  request: { cancelled_by?: string | undefined; reason?: string | undefined },
  ahead?: ApprovalReadAhead,
): Promise<AnswerOutcome> {
  const acting = humanActorOf(caller, 'cancel_approval', request.cancelled_by);
  if (!acting.ok) return acting;
  const row = await approvalToAnswer(deps.db, caller.organization_id, approvalId, ahead);
  if (!row) return { ok: false, code: 'approval_not_found', detail: `No approval request ${approvalId}` };
  const approval = approvalFromRow(row);
  const refused = approverRefusal(approval, acting.actor, 'cancel');
  if (refused) return refused;
  const input: CancelApprovalInput = {
    cancelled_by: request.cancelled_by ?? acting.actor.did,
    reason: request.reason,
    principal: caller.id,
    actor: acting.actor,
  };
  return endByAnswer(deps, approval, { kind: 'cancel', input }, acting.actor);
}
