import type { Knex } from 'knex';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import type { RouteTaskInput } from '../contracts/route-task';
import { RoutingState } from '../contracts/aggregates/routing';
import { rowOf } from '../lib/shape';
import { stateOfRow, type ProjectedRow } from './projected-rows';
import { preparedQuery } from './prepared';
import { pendingStartInsert, type PendingStart } from './workflow-starts';

/** What a projection writes: the workflow's state, and the parts of its input the row keeps beside it. */
export type RoutingProjection = Pick<RouteTaskInput, 'request_id' | 'task' | 'requested_by' | 'organization_id'> & {
  state: RoutingState;
};

/** The row as Postgres stores it: the state (unset fields null, instants as Date), and the projection's input beside it. */
export type RoutingRow = ProjectedRow<RoutingState, 'created_at' | 'updated_at' | 'assigned_at' | 'escalated_at'> &
  Pick<RoutingProjection, 'requested_by' | 'task'> & { request_id: string | null; organization_id: string };

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/** The reviewer assignment a routing's state leaves open: the last chain level while a human holds it. */
export interface OpenAssignment {
  chain_level: number;
  reviewer_did: string;
  assigned_at: string;
}

/** The open assignment a state implies: the last level of the chain while a human holds the routing. */
export function openAssignmentOf(state: RoutingState): OpenAssignment | undefined {
  const last = state.escalation_chain[state.escalation_chain.length - 1];
  if (state.status !== 'in_progress' || state.assigned_to?.type !== 'human' || !last) return undefined;
  return { chain_level: last.level, reviewer_did: last.did, assigned_at: last.timestamp };
}

const routingRow = rowOf(RoutingState, { defaults: { safety_violation_count: 0, rules_triggered: [] } }).of;

/** The row a projection writes: the state's columns, and the parts of the workflow's input kept beside them. */
function routingRowOf(projection: RoutingProjection) {
  return {
    ...routingRow(projection.state),
    request_id: projection.request_id ?? null,
    requested_by: projection.requested_by,
    organization_id: projection.organization_id ?? DEFAULT_ORGANIZATION_ID,
    task: JSON.stringify(projection.task),
  };
}

/** The CTE that records the open assignment of the row a `projected` CTE wrote (returning its id and organization): binds chain level, reviewer, time. */
const ASSIGN_OPEN = `, assigned as (
         insert into reviewer_assignments (routing_id, organization_id, chain_level, reviewer_did, assigned_at)
         select routing_id, organization_id, ?::int, ?, ?::timestamptz from projected
         on conflict (routing_id, chain_level) do nothing)`;

/**
 * Applies a projection only when it is newer than what is stored, so retries and reordering are harmless,
 * and with it the reviewer load it implies: the open assignment recorded, every other one of the routing
 * released. One statement (data-modifying CTEs), so one round trip and atomic without a transaction; the
 * assignment changes happen only when the projection was applied. Says whether it was, and which reviewers
 * it freed.
 */
export async function projectRouting(
  db: Knex,
  projection: RoutingProjection,
  open: OpenAssignment | undefined,
): Promise<{ applied: boolean; released: string[] }> {
  const row = routingRowOf(projection);
  const { state } = projection;
  const {
    routing_id: _key,
    request_id: _request,
    requested_by: _by,
    organization_id: _organization,
    task: _task,
    created_at: _created,
    ...changes
  } = row;
  const upsert = db('routings')
    .insert(row)
    .onConflict('routing_id')
    .merge(changes)
    .where('routings.version', '<', state.version)
    .returning(['routing_id', 'organization_id'])
    .toSQL();
  // The CTEs share one snapshot: the release cannot see the assignment inserted beside it, and skips its level.
  const assign = open ? ASSIGN_OPEN : '';
  const { rows } = await db.raw<{ rows: { applied: number; released: string[] }[] }>(
    `with projected as (${upsert.sql})${assign},
     released as (
       update reviewer_assignments set released_at = now()
        where routing_id in (select routing_id from projected) and released_at is null and chain_level is distinct from ?::int
        returning reviewer_did)
     select (select count(*)::int from projected) as applied, (select coalesce(array_agg(distinct reviewer_did), '{}') from released) as released`,
    [
      ...upsert.bindings,
      ...(open ? [open.chain_level, open.reviewer_did, open.assigned_at] : []),
      open?.chain_level ?? null,
    ],
  );
  return { applied: rows[0]!.applied > 0, released: rows[0]!.released };
}

/**
 * A reviewer's resolution claimed in one statement: the conditional write that only a routing a human holds,
 * still at the version the caller read, takes, and only when it took it, the reviewer's assignment released
 * and the workflow's signal committed. Of a resolution, a second one and the workflow's own next step (an
 * escalation at a timeout) racing each other, exactly one writes the next version. Returns the reviewers it
 * freed, or undefined when it did not take the routing.
 */
export async function claimRoutingResolution(
  db: Knex,
  claim: {
    routing_id: string;
    organization_id: string;
    read_version: number;
    resolved: RoutingState;
    signal: { name: string; args: unknown[] };
  },
): Promise<{ released: string[] } | undefined> {
  const { resolved } = claim;
  const { rows } = await db.raw<{ rows: { claimed: number; released: string[] }[] }>(
    `with claimed as (
       update routings set status = ?, version = ?, resolution = ?::jsonb, updated_at = ?
        where routing_id = ? and organization_id = ? and version = ? and status = 'in_progress' and assigned_to->>'type' = 'human'
        returning routing_id),
     released as (
       update reviewer_assignments set released_at = now()
        where routing_id in (select routing_id from claimed) and released_at is null
        returning reviewer_did),
     pending_signal as (
       insert into workflow_signals (workflow_id, signal_name, args)
       select routing_id, ?, ?::jsonb from claimed
       on conflict do nothing)
     select (select count(*)::int from claimed) as claimed, (select coalesce(array_agg(distinct reviewer_did), '{}') from released) as released`,
    [
      resolved.status,
      resolved.version,
      json(resolved.resolution),
      resolved.updated_at,
      claim.routing_id,
      claim.organization_id,
      claim.read_version,
      claim.signal.name,
      JSON.stringify(claim.signal.args),
    ],
  );
  const result = rows[0]!;
  return result.claimed > 0 ? { released: result.released } : undefined;
}

/** The row as the workflow's state: unset fields left out, instants as ISO strings, the projection's input beside it dropped. */
export function routingStateOf(row: RoutingRow): RoutingState {
  return stateOfRow(RoutingState, row);
}

/** The routing by id alone, in the transaction of a step its workflow records. */
export async function findRoutingToRecord(db: Knex, routingId: string): Promise<RoutingRow | undefined> {
  return db<RoutingRow>('routings').where({ routing_id: routingId }).first();
}

/**
 * Queued routings a reviewer holding these capabilities might serve, oldest first: those whose task needs
 * no other capability (weights, and capabilities a rule added, are checked by the routing itself).
 */
export async function findQueuedRoutingIds(
  db: Knex,
  organizationId: string,
  capabilityIds: string[],
  limit = 500,
): Promise<string[]> {
  const rows = await db('routings')
    .select('routing_id')
    .where({ status: 'queued', organization_id: organizationId })
    .whereRaw(
      // Grants key capabilities lower-cased; a requirement relaxed after a wait does not keep a reviewer out.
      `(select coalesce(array_agg(lower(c->>'capability_id')) filter (where c->'relax_after_seconds' is null), '{}')
          from jsonb_array_elements(task->'required_capabilities') c) <@ ?::text[]`,
      [capabilityIds],
    )
    .orderBy([{ column: 'created_at' }, { column: 'routing_id' }])
    .limit(limit);
  return rows.map((row: { routing_id: string }) => row.routing_id);
}

export async function findRoutingById(
  db: Knex,
  organizationId: string,
  routingId: string,
): Promise<RoutingRow | undefined> {
  return db<RoutingRow>('routings').where({ routing_id: routingId }).where('organization_id', organizationId).first();
}

/** A routing's decision as one statement writes it: its records, its row with the open assignment, its workflow's pending start. */
export interface DecisionWrite {
  /** The ledger_append() call of the decision's records (db/ledger.ts ledgerAppendCall). */
  append: { sql: string; bindings: readonly unknown[] };
  /** The record whose anchor the decision carries (its last, routing_decision). */
  anchor_transaction_id: string;
  projection: RoutingProjection;
  open: OpenAssignment | undefined;
  start: PendingStart;
}

const DECISION_ANCHOR_PATH = '{provenance,ledger_anchor}';
const START_ANCHOR_PATH = '{0,decided,state,decision_result,provenance,ledger_anchor}';

/** insertDecidedRouting's statements, by their shape: each built once, and prepared (db/prepared.ts). */
const decisionStatements = new Map<string, string>();

/** The statement of a decision whose row has these columns (sorted) and that opens an assignment or not. */
function decisionStatement(columns: readonly string[], opens: boolean, append: string, started: string): string {
  const shape = `${columns.join(',')}|${String(opens)}|${append}|${started}`;
  let sql = decisionStatements.get(shape);
  if (sql) return sql;
  // The row's values in column order; the decision carries its record's anchor, read from the append beside it.
  const values = columns.map((column) =>
    column === 'decision_result'
      ? `jsonb_set(?::jsonb, '${DECISION_ANCHOR_PATH}', (select anchor from decision_anchor))`
      : '?',
  );
  const insert = `insert into "routings" (${columns.map((column) => `"${column}"`).join(', ')}) values (${values.join(', ')})
       on conflict ("routing_id") do nothing returning "routing_id", "organization_id"`;
  sql = `with appended as (select * from ${append}),
     decision_anchor as (
       select block_number, jsonb_build_object('transaction_id', transaction_id, 'block_number', block_number) as anchor
         from appended where transaction_id = ?),
     projected as (${insert})${opens ? ASSIGN_OPEN : ''},
     started as (${started})
     select (select count(*)::int from projected) as applied, (select block_number from decision_anchor) as block_number`;
  decisionStatements.set(shape, sql);
  return sql;
}

/**
 * Writes a routing's first version in one statement, so in one round trip and atomically without a
 * transaction: the records appended first, the row (the decision carrying its record's anchor) with the
 * reviewer's assignment, and the workflow's pending start (its input carrying the same anchor). A routing
 * decided before is left as it is (applied: false), its records found rather than appended again.
 */
export async function insertDecidedRouting(
  db: Knex,
  write: DecisionWrite,
): Promise<{ applied: boolean; block_number: number }> {
  const row: Record<string, unknown> = routingRowOf(write.projection);
  const columns = Object.keys(row).sort();
  const { open, start } = write;
  const started = pendingStartInsert(
    start,
    'projected',
    `jsonb_set(?::jsonb, '${START_ANCHOR_PATH}', (select anchor from decision_anchor))`,
  );
  const rows = await preparedQuery<{ applied: number; block_number: number | null }>(
    db,
    decisionStatement(columns, open !== undefined, write.append.sql, started.sql),
    [
      ...write.append.bindings,
      write.anchor_transaction_id,
      ...columns.map((column) => row[column]),
      ...(open ? [open.chain_level, open.reviewer_did, open.assigned_at] : []),
      ...started.bindings,
    ],
  );
  const result = rows[0]!;
  if (result.block_number === null)
    throw new Error(`the decision's record ${write.anchor_transaction_id} was neither appended nor found`);
  return { applied: result.applied > 0, block_number: result.block_number };
}
