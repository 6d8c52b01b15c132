import type { Knex } from 'knex';
import { ExecutionState } from '../contracts/aggregates/execution';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';
import { stateOfRow, type ProjectedRow } from './projected-rows';
import { upsertProjection } from './projections';

/** The state as the executions table holds it (unset fields null, instants as Date), with the attempt log's counts. */
export type ExecutionRow = ProjectedRow<ExecutionState, 'queued_at' | 'started_at' | 'completed_at' | 'updated_at'> & {
  /** Live from the attempt log: the attempt under way may be later than the last projection knows. */
  live_attempt: number;
  live_callback_attempts: number;
};

export interface AttemptRow {
  execution_id: string;
  kind: 'agent' | 'callback';
  attempt: number;
  started_at: Date;
  finished_at: Date | null;
  status_code: number | null;
  outcome: string;
  error: string | null;
  duration_ms: number | null;
}

const executionRow = rowOf(ExecutionState).of;

export async function upsertExecutionProjection(
  db: Knex,
  state: ExecutionState,
  organizationId: string,
): Promise<void> {
  await upsertProjection(
    db,
    'executions',
    { key: 'execution_id', once: ['queued_at', 'organization_id'] },
    { ...executionRow(state), organization_id: organizationId },
  );
}

/** Executions with the attempt counts of their logs folded in. */
function executionsWithLiveAttempts(db: Knex): Knex.QueryBuilder {
  return db('executions as e').select(
    'e.*',
    db.raw(
      `greatest(e.current_attempt, coalesce((select max(a.attempt) from execution_attempts a where a.execution_id = e.execution_id and a.kind = 'agent'), 0)) as live_attempt`,
    ),
    db.raw(
      `greatest(e.callback_attempts, coalesce((select max(a.attempt) from execution_attempts a where a.execution_id = e.execution_id and a.kind = 'callback'), 0)) as live_callback_attempts`,
    ),
  );
}

/** Within an organization when one is named: another tenant's execution is not found. */
export async function findExecutionById(
  db: Knex,
  executionId: string,
  organizationId?: string,
): Promise<ExecutionRow | undefined> {
  const query = executionsWithLiveAttempts(db).where('e.execution_id', executionId);
  if (organizationId !== undefined) void query.andWhere('e.organization_id', organizationId);
  return query.first<ExecutionRow | undefined>();
}

export async function listExecutionAttempts(db: Knex, executionId: string): Promise<AttemptRow[]> {
  return db<AttemptRow>('execution_attempts')
    .where({ execution_id: executionId })
    .orderBy([{ column: 'kind' }, { column: 'attempt' }]);
}

export async function listExecutions(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: Partial<Pick<ExecutionState, 'status' | 'agent_id'>>,
): Promise<Page<ExecutionRow>> {
  const query = executionsWithLiveAttempts(db).where('e.organization_id', organizationId);
  if (filter.status) query.where('e.status', filter.status);
  if (filter.agent_id)
    query.where((where) => where.where('e.agent_id', filter.agent_id!).orWhere('e.agent_uri', filter.agent_id!));
  return paginate<ExecutionRow>(query, page);
}

export async function countExecutionsByStatus(db: Knex, organizationId: string): Promise<Record<string, number>> {
  const rows = await db('executions')
    .where({ organization_id: organizationId })
    .select('status')
    .count<{ status: string; count: number }[]>({ count: '*' })
    .groupBy('status');
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}

/** The start of an attempt; a retried activity (same attempt) finds the row there and leaves it. */
export async function recordAttemptStarted(
  db: Knex,
  attempt: { execution_id: string; kind: 'agent' | 'callback'; attempt: number; started_at: Date },
): Promise<void> {
  await db('execution_attempts')
    .insert({ ...attempt, outcome: 'in_flight' })
    .onConflict(['execution_id', 'kind', 'attempt'])
    .ignore();
}

export async function recordAttemptFinished(
  db: Knex,
  attempt: {
    execution_id: string;
    kind: 'agent' | 'callback';
    attempt: number;
    outcome: string;
    status_code?: number | undefined;
    error?: string | undefined;
    duration_ms: number;
  },
): Promise<void> {
  await db('execution_attempts')
    .where({ execution_id: attempt.execution_id, kind: attempt.kind, attempt: attempt.attempt })
    .update({
      outcome: attempt.outcome,
      status_code: attempt.status_code ?? null,
      error: attempt.error ?? null,
      duration_ms: attempt.duration_ms,
      finished_at: db.fn.now(),
    });
}

/** The row as the workflow's state, with the attempt counts of the logs folded in. */
export function executionFromRow(row: ExecutionRow): ExecutionState {
  return {
    ...stateOfRow(ExecutionState, row),
    current_attempt: row.live_attempt,
    callback_attempts: row.live_callback_attempts,
  };
}
