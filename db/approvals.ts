import type { Knex } from 'knex';
import type { ApprovalChanges } from '../domain/approvals/steps';
import type { ApprovalStatus } from '../domain/approvals/requests';
import { ApprovalState } from '../contracts/aggregates/approval';
import { rowOf } from '../lib/shape';
import type { Nullable } from '../lib/nullable';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { paginate, type Page, type PageRequest } from './pagination';
import { upsertProjection } from './projections';
import { preparedQuery } from './prepared';
import { pendingStartInsert, type PendingStart } from './workflow-starts';

type ApprovalDates = 'created_at' | 'responded_at' | 'expires_at' | 'updated_at';

/** The state as the approvals table holds it: unset fields null, instants as Date. */
export type ApprovalRow = Nullable<Omit<ApprovalState, ApprovalDates>> & {
  [K in ApprovalDates]: undefined extends ApprovalState[K] ? Date | null : Date;
};

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** A CTE `appended` of the records ledger_append appends (bindings: records, lock) only when the statement's CTE `source` yields a row. */
function appendedWhen(source: string): string {
  return `appended as (select * from ledger_append(case when exists (select 1 from ${source}) then ?::jsonb else '[]'::jsonb end, ?))`;
}

/**
 * The statements below, by their shape: each built once, and prepared (db/prepared.ts), where knex built them at
 * every call (an opening's 30-odd columns, an answer's claim) and Postgres parsed and planned them.
 */
const statements = new Map<string, string>();

function statementOf(shape: string, build: () => string): string {
  let sql = statements.get(shape);
  if (sql === undefined) {
    sql = build();
    statements.set(shape, sql);
  }
  return sql;
}

/** An opening's statement for a row of these columns (sorted). */
function openingStatement(columns: readonly string[], started: string): string {
  return statementOf(`open|${columns.join(',')}|${started}`, () => {
    const names = columns.map((column) => `"${column}"`).join(', ');
    return `with inserted as (insert into "approvals" (${names}) values (${columns.map(() => '?').join(', ')})
       on conflict ("approval_id") do nothing returning "approval_id"),
     started as (${started}),
     ${appendedWhen('inserted')}
     select (select count(*)::int from inserted) as opened, (select count(*)::int from appended) as appended`;
  });
}

/**
 * Opens a request in one statement, so in one round trip and atomically without a transaction: its row, and,
 * only when the row is new, its records appended (as ledgerAppendCall in db/ledger.ts gives them: [records, lock]) and
 * its workflow's pending start. An id opened before is left as it is; says whether this call opened it.
 */
export async function insertOpenedApproval(
  db: Knex,
  opened: { state: ApprovalState; append_bindings: readonly unknown[]; start: PendingStart },
): Promise<boolean> {
  const row: Record<string, unknown> = approvalRow(opened.state);
  // A column left undefined takes its default, as knex's insert writes it.
  const columns = Object.keys(row)
    .filter((column) => row[column] !== undefined)
    .sort();
  const started = pendingStartInsert(opened.start, 'inserted');
  const [records, lock] = opened.append_bindings;
  const rows = await preparedQuery<{ opened: number; appended: number }>(db, openingStatement(columns, started.sql), [
    ...columns.map((column) => row[column]),
    ...started.bindings,
    records,
    lock,
  ]);
  const result = rows[0]!;
  if (result.opened > 0 && result.appended === 0)
    throw new Error(`the opening record of ${opened.state.approval_id} was neither appended nor found`);
  return result.opened > 0;
}

/** Applies the workflow's state only when newer than what is stored, so retries and reordering are harmless. */
export async function upsertApprovalProjection(db: Knex, state: ApprovalState): Promise<void> {
  await upsertProjection(db, 'approvals', { key: 'approval_id', once: ['created_at'] }, approvalRow(state));
}

const approvalRow = rowOf(ApprovalState, { defaults: { organization_id: DEFAULT_ORGANIZATION_ID } }).of;

/**
 * The columns a claim writes: an ending's changes (unset answer fields cleared), or, for a step that leaves the
 * request pending (a quorum vote, an escalation, a hold), only what it changes; its record's id, one version up.
 */
function claimWrite(claim: {
  changes: ApprovalChanges;
  provenance_id: string;
  updated_at: string;
}): Record<string, unknown> {
  const { changes } = claim;
  const stamp = { provenance_id: claim.provenance_id, updated_at: claim.updated_at };
  const pendingSteps = {
    ...(changes.votes !== undefined ? { votes: json(changes.votes), approvals_needed: changes.approvals_needed } : {}),
    ...(changes.expiry_outcome !== undefined ? { expiry_outcome: changes.expiry_outcome } : {}),
    ...(changes.approver_passport_id !== undefined ? { approver_passport_id: changes.approver_passport_id } : {}),
    ...(changes.escalation_level !== undefined ? { escalation_level: changes.escalation_level } : {}),
    ...(changes.expires_at !== undefined ? { expires_at: changes.expires_at } : {}),
  };
  if (changes.status === undefined) return { ...pendingSteps, ...stamp };
  return {
    ...pendingSteps,
    status: changes.status,
    responded_by: changes.responded_by ?? null,
    response_kind: changes.response_kind ?? null,
    response_comment: changes.response_comment ?? null,
    modified_params: json(changes.modified_params),
    cancelled_by: changes.cancelled_by ?? null,
    cancel_reason: changes.cancel_reason ?? null,
    responded_at: changes.responded_at ?? null,
    ...stamp,
  };
}

/** A pending request still takes answers before its deadline by Postgres's clock, or once held open past it. */
const TAKES_ANSWERS = "(expires_at > statement_timestamp() or expiry_outcome = 'held')";

/**
 * The one write that ends a request: it takes only a still-pending request (and, for a human's answer,
 * one whose deadline has not passed by Postgres's clock), so of an answer, a second answer, a cancel and
 * the expiry racing each other exactly one succeeds. Returns the row as ended, or undefined when another
 * ending (or the deadline) came first.
 */
export async function claimApprovalEnding(
  db: Knex,
  approvalId: string,
  claim: { changes: ApprovalChanges; provenance_id: string; updated_at: string; before_deadline: boolean },
): Promise<ApprovalRow | undefined> {
  const query = db<ApprovalRow>('approvals').where({ approval_id: approvalId, status: 'pending' });
  if (claim.before_deadline) query.whereRaw(TAKES_ANSWERS);
  const [row] = await query.update({ ...claimWrite(claim), version: db.raw('version + 1') }).returning('*');
  return row;
}

/** An answer's claim that writes these columns (one version up besides). */
function answerClaimStatement(columns: readonly string[]): string {
  return statementOf(`answer|${columns.join(',')}`, () => {
    const set = [...columns.map((column) => `"${column}" = ?`), '"version" = version + 1'].join(', ');
    return `with claimed as (update "approvals" set ${set}
         where "approval_id" = ? and "status" = 'pending' and "version" = ? and ${TAKES_ANSWERS} returning *),
     pending_signal as (
       insert into workflow_signals (workflow_id, signal_name, args)
       select approval_id, ?, ?::jsonb from claimed where ?::boolean
       on conflict do nothing),
     ${appendedWhen('claimed')}
     select claimed.* from claimed where (select count(*) from appended) > 0`;
  });
}

/**
 * A human's answer (or cancel, or a quorum vote) claimed in one statement, so in one round trip and atomically without a
 * transaction: the conditional write of claimApprovalEnding, also requiring the version the caller read
 * (whose request its record was built from), and only when it took the row, the ending's records appended
 * and the workflow's signal committed. Returns the row as ended, or undefined when it did not take it.
 */
export async function claimApprovalAnswer(
  db: Knex,
  approvalId: string,
  claim: {
    changes: ApprovalChanges;
    provenance_id: string;
    updated_at: string;
    read_version: number;
    /** The ending's records, as ledgerAppendCall (db/ledger.ts) gives them: [records, lock]. */
    append_bindings: readonly unknown[];
    /** The ended signal to the workflow; none for a vote that leaves the request pending. */
    signal: { name: string; args: unknown[] } | undefined;
  },
): Promise<ApprovalRow | undefined> {
  const write = claimWrite(claim);
  // A column left undefined is not written, as knex's update leaves it.
  const columns = Object.keys(write).filter((column) => write[column] !== undefined);
  const [records, lock] = claim.append_bindings;
  const rows = await preparedQuery<ApprovalRow>(db, answerClaimStatement(columns), [
    ...columns.map((column) => write[column]),
    approvalId,
    claim.read_version,
    claim.signal?.name ?? '',
    JSON.stringify(claim.signal?.args ?? []),
    claim.signal !== undefined,
    records,
    lock,
  ]);
  return rows[0];
}

/**
 * The request in the organization: another organization's id is as unknown as one never used, and so is, with
 * `naming`, one that does not name the person (the same scope as listApprovals').
 */
export async function findApprovalById(
  db: Knex,
  organizationId: string,
  approvalId: string,
  naming?: string[],
): Promise<ApprovalRow | undefined> {
  const query = db<ApprovalRow>('approvals').where({ approval_id: approvalId, organization_id: organizationId });
  if (naming) query.where((by) => namesAny(by, naming));
  return query.first();
}

/** A request by id alone, for the claim that ends it: its caller was checked against the organization before. */
export async function findApprovalToEnd(db: Knex, approvalId: string): Promise<ApprovalRow | undefined> {
  return db<ApprovalRow>('approvals').where({ approval_id: approvalId }).first();
}

export type ApprovalFilter = Partial<Pick<ApprovalState, 'status' | 'agent_id' | 'org_did'>> & {
  /** The one approver, or one of a quorum request's approvers. */
  approver?: ApprovalState['approver_passport_id'] | undefined;
  requester?: ApprovalState['requester_passport_id'] | undefined;
  /** Only requests naming one of these (a person's DID and Passport id) as approver, quorum approver or requester. */
  naming?: string[] | undefined;
};

/** Requests whose approver, or one of whose quorum approvers, is one of these. */
function approvedBy(query: Knex.QueryBuilder, identities: string[]): void {
  query.whereIn('approver_passport_id', identities).orWhereRaw('jsonb_exists_any(approvers, ?::text[])', [identities]);
}

/** Requests naming one of these as approver, quorum approver or requester. */
function namesAny(query: Knex.QueryBuilder, identities: string[]): void {
  approvedBy(query, identities);
  query.orWhereIn('requester_passport_id', identities);
}

export async function listApprovals(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: ApprovalFilter,
): Promise<Page<ApprovalRow>> {
  const query = db<ApprovalRow>('approvals').select('*').where({ organization_id: organizationId });
  if (filter.status) query.where({ status: filter.status });
  const { approver, naming } = filter;
  if (approver) query.where((by) => approvedBy(by, [approver]));
  if (naming) query.where((by) => namesAny(by, naming));
  if (filter.requester) query.where({ requester_passport_id: filter.requester });
  if (filter.agent_id) query.where({ agent_id: filter.agent_id });
  if (filter.org_did) query.where({ org_did: filter.org_did });
  return paginate<ApprovalRow>(query, page);
}

export async function countApprovalsByStatus(
  db: Knex,
  organizationId: string,
  status: ApprovalStatus,
): Promise<number> {
  const [row] = await db('approvals')
    .where({ status, organization_id: organizationId })
    .count<{ count: number }[]>({ count: '*' });
  return row?.count ?? 0;
}

const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : undefined);

/** The row as the workflow's state: what a closed workflow left, in the shape its Updates answer with. */
export function approvalFromRow(row: ApprovalRow): ApprovalState {
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (value !== null) state[key] = value;
  return {
    ...(state as unknown as ApprovalState),
    created_at: iso(row.created_at)!,
    expires_at: iso(row.expires_at)!,
    updated_at: iso(row.updated_at)!,
    ...(row.responded_at ? { responded_at: iso(row.responded_at)! } : {}),
  };
}
