import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { z } from 'zod';
import { approvalFromRow, findApprovalById, insertOpenedApproval } from '../../db/approvals';
import { seatsWithCovers } from '../covers/covers';
import { ledgerAppendCall, transactionIdFor } from '../../db/ledger';
import { approvalRecord, requestedTransition, type ProvenRequester } from '../../domain/approvals/steps';
import { expiryProblems } from '../../domain/approvals/expiry';
import { openingQuorum, quorumProblems } from '../../domain/approvals/quorum';
import type { Actor } from '../identity/authentication/actor';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { unstorableRefusal } from '../../domain/common/storable-text';
import { assessCallRisk } from '../../domain/executions/agent-calls';
import type { PlatformSettings } from '../platform/settings';
import type { NotifiedCache } from '../../lib/notified-cache';
import {
  APPROVAL_WORKFLOW,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalWorkflow,
} from '../../contracts/approval';
import { FAILURE_TYPES } from '../../contracts/failures';
import { AgentIdKey, ApproverKey, PlatformStatusKey } from '../../contracts/search-attributes';
import { refusedWrite, StorageRefusedError, type StorageRefusal } from '../platform/refusals';
import { startAfterCommit, startIfPending, type PendingStart } from '../workflow-starts/starts';

export interface PlatformServiceDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  settings: PlatformSettings;
  /** Rows held in memory while every change to them is heard of (the API's; lib/notified-cache.ts): the covers. */
  held?: NotifiedCache | undefined;
}

export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export type ExpiryCheck = { ok: true; expires_at: string } | { ok: false; error: FieldProblem };

/** The deadline of a new request: given, or from a lifetime, or the default; in the future and within the maximum. */
export function approvalDeadline(
  settings: PlatformSettings,
  now: Date,
  given: { expires_at?: string | undefined; expires_in_seconds?: number | undefined },
): ExpiryCheck {
  if (given.expires_at !== undefined && given.expires_in_seconds !== undefined) {
    return {
      ok: false,
      error: {
        field: 'expires_in_seconds',
        code: 'conflict',
        message: 'give expires_at or expires_in_seconds, not both',
      },
    };
  }
  const at =
    given.expires_at !== undefined
      ? Date.parse(given.expires_at)
      : now.getTime() + (given.expires_in_seconds ?? settings.approvalDefaultTtlSeconds) * 1000;
  const field = given.expires_at !== undefined ? 'expires_at' : 'expires_in_seconds';
  if (at <= now.getTime())
    return { ok: false, error: { field, code: 'in_the_past', message: 'must be in the future' } };
  if (at > now.getTime() + settings.approvalMaxTtlSeconds * 1000) {
    return {
      ok: false,
      error: { field, code: 'too_far', message: `must be at most ${settings.approvalMaxTtlSeconds} s from now` },
    };
  }
  return { ok: true, expires_at: new Date(at).toISOString() };
}

/** A JSON Schema we can check parameters against; refuses remote $refs and what zod cannot read. */
export function paramsValidator(
  schema: Record<string, unknown>,
): { ok: true; validator: z.ZodType } | { ok: false; message: string } {
  try {
    return { ok: true, validator: z.fromJSONSchema(schema) };
  } catch (error) {
    return { ok: false, message: `is not a JSON Schema this service can apply: ${(error as Error).message}` };
  }
}

/**
 * A new request as its creator gives it: the workflow's request without the ids this service assigns and the
 * links only executions and DAGs set; risk and deadline may be left to defaults, the deadline given as a lifetime.
 */
export type NewApproval = Omit<
  ApprovalRequest,
  ApprovalIds | 'execution_id' | 'workflow_id' | 'risk_level' | 'risk_factors' | 'expires_at'
> &
  Partial<Pick<ApprovalRequest, 'risk_level' | 'risk_factors' | 'expires_at'>> & {
    expires_in_seconds?: number | undefined;
  };

type ApprovalIds = 'approval_id' | 'requested_by' | 'organization_id';

export type CreateApprovalOutcome =
  { ok: true; approval: ApprovalState } | { ok: false; errors: FieldProblem[] } | StorageRefusal;

/** The request as its workflow takes it; risk defaults to what request_data shows (amount, irreversible, …). */
export function approvalRequestOf(
  settings: PlatformSettings,
  now: Date,
  ids: Pick<ApprovalRequest, ApprovalIds>,
  body: NewApproval,
): { ok: true; request: ApprovalRequest } | { ok: false; errors: FieldProblem[] } {
  const deadline = approvalDeadline(settings, now, body);
  const errors: FieldProblem[] = [
    ...(deadline.ok ? [] : [deadline.error]),
    ...quorumProblems(body),
    ...expiryProblems(body),
  ];
  if (body.params_schema) {
    const compiled = paramsValidator(body.params_schema);
    if (!compiled.ok) errors.push({ field: 'params_schema', code: 'invalid_schema', message: compiled.message });
  }
  if (!deadline.ok || errors.length > 0) return { ok: false, errors };
  const assessed = assessCallRisk(body.request_data);
  const { expires_in_seconds: _lifetime, expires_at: _deadline, ...fields } = body;
  return {
    ok: true,
    request: {
      ...fields,
      ...ids,
      risk_level: body.risk_level ?? assessed.level,
      risk_factors: body.risk_factors ?? assessed.factors,
      expires_at: deadline.expires_at,
      ...(body.approvers ? { required_approvals: body.required_approvals ?? body.approvers.length } : {}),
    },
  };
}

/** The approval workflow's pending start: the request, and its state as the service recorded it. */
export function approvalStart(taskQueue: string, request: ApprovalRequest, opened: ApprovalState): PendingStart {
  return {
    workflow_id: request.approval_id,
    workflow_type: APPROVAL_WORKFLOW,
    task_queue: taskQueue,
    args: [request, opened] satisfies Parameters<ApprovalWorkflow>,
    search_attributes: [
      { key: PlatformStatusKey, value: 'pending' },
      ...(request.approver_passport_id ? [{ key: ApproverKey, value: request.approver_passport_id }] : []),
      ...(request.agent_id ? [{ key: AgentIdKey, value: request.agent_id }] : []),
    ],
  };
}

/** Who asks, as the caller's credential proved it: a person (or the agent holding their delegation), or a principal that is no person. */
export function provenRequester(caller: { kind: string; id: string; actor?: Actor | undefined }): ProvenRequester {
  if (!caller.actor) return { kind: 'principal', principal: { kind: caller.kind, id: caller.id } };
  return { kind: 'person', person: caller.actor, agent_did: caller.actor.delegation?.agent_did };
}

/**
 * Opens a request in one statement (its row, its provenance record and event, the workflow's pending
 * start) and answers at commit; the plain start of its workflow, which keeps its deadline, is made behind the
 * answer. The `requested` record names the caller
 * as its credential proved it (without one, the core asked). A crash between the commit and the
 * start loses nothing: the outbox dispatcher, or a retry of the request, starts it. An id opened before
 * answers with its request as it stands.
 */
export async function createApproval(
  deps: PlatformServiceDeps,
  ids: Pick<ApprovalRequest, ApprovalIds>,
  body: NewApproval,
  caller?: { kind: string; id: string; actor?: Actor | undefined },
): Promise<CreateApprovalOutcome> {
  const at = new Date();
  // A named approver away on a cover is replaced by their colleague now; a request already open keeps its approver.
  const seats = await seatsWithCovers(deps.db, ids.organization_id ?? DEFAULT_ORGANIZATION_ID, body, at, deps.held);
  const prepared = approvalRequestOf(deps.settings, at, ids, { ...body, ...seats });
  if (!prepared.ok) return prepared;
  const { request } = prepared;
  const unstorable = unstorableRefusal(request, 'request');
  if (unstorable) return { ok: false, code: FAILURE_TYPES.invalidData, detail: unstorable };
  const now = at.toISOString();
  const transition = requestedTransition(request, caller && provenRequester(caller));
  const opened: ApprovalState = {
    ...request,
    ...openingQuorum(request),
    version: 1,
    status: 'pending',
    provenance_id: transactionIdFor(request.approval_id, transition.step_id),
    created_at: now,
    updated_at: now,
  };
  const start = approvalStart(deps.taskQueue, request, opened);
  let openedNow: boolean;
  try {
    openedNow = await insertOpenedApproval(deps.db, {
      state: opened,
      append_bindings: ledgerAppendCall([
        { ...approvalRecord(request, opened, transition, now), organization_id: request.organization_id },
      ]).bindings,
      start,
    });
  } catch (error) {
    const refused = refusedWrite(error);
    if (refused instanceof StorageRefusedError) return refused.refusal;
    throw refused;
  }
  if (!openedNow) {
    const row = await findApprovalById(
      deps.db,
      request.organization_id ?? DEFAULT_ORGANIZATION_ID,
      request.approval_id,
    );
    if (!row) throw new Error(`Approval ${request.approval_id} was opened but has no row in its organization`);
    await startIfPending(deps, request.approval_id);
    return { ok: true, approval: approvalFromRow(row) };
  }
  startAfterCommit(deps, start);
  return { ok: true, approval: opened };
}
