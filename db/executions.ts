import type { Knex } from 'knex';
import type { ExecutionState } from '../contracts/execute-agent';
import type { Nullable } from '../lib/nullable';
import { paginate, type Page, type PageRequest } from './pagination';
import { upsertProjection } from './projections';

type ExecutionDates = 'queued_at' | 'started_at' | 'completed_at' | 'updated_at';

/** The state as the executions table holds it (unset fields null, instants as Date), with the attempt log's counts. */
export type ExecutionRow = Nullable<Omit<ExecutionState, ExecutionDates>> & {
  [K in ExecutionDates]: undefined extends ExecutionState[K] ? Date | null : Date;
} & {
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

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

export async function upsertExecutionProjection(
  db: Knex,
  state: ExecutionState,
  organizationId: string,
): Promise<void> {
  const row = {
    execution_id: state.execution_id,
    version: state.version,
    status: state.status,
    task_id: state.task_id ?? null,
    agent_id: state.agent_id,
    agent_uri: state.agent_uri,
    capability_uri: state.capability_uri,
    requester_passport_id: state.requester_passport_id,
    requested_by: state.requested_by,
    parameters: json(state.parameters),
    risk_level: state.risk_level,
    risk_factors: json(state.risk_factors),
    approval_id: state.approval_id ?? null,
    workflow_id: state.workflow_id ?? null,
    node_id: state.node_id ?? null,
    result_json: json(state.result_json),
    error_json: json(state.error_json),
    progress_percent: state.progress_percent,
    progress_message: state.progress_message ?? null,
    callback_url: state.callback_url ?? null,
    callback_success: state.callback_success ?? null,
    callback_attempts: state.callback_attempts,
    max_attempts: state.max_attempts,
    current_attempt: state.current_attempt,
    cancelled_by: state.cancelled_by ?? null,
    cancel_reason: state.cancel_reason ?? null,
    provenance_id: state.provenance_id ?? null,
    queued_at: state.queued_at,
    started_at: state.started_at ?? null,
    completed_at: state.completed_at ?? null,
    updated_at: state.updated_at,
  } satisfies Record<keyof ExecutionState, unknown>;
  await upsertProjection(
    db,
    'executions',
    { key: 'execution_id', once: ['queued_at', 'organization_id'] },
    { ...row, organization_id: organizationId },
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

const iso = (value: Date | null | undefined) => (value ? new Date(value).toISOString() : undefined);

/** The row as the workflow's state, with the attempt counts of the logs folded in. */
export function executionFromRow(row: ExecutionRow): ExecutionState {
  const { live_attempt, live_callback_attempts, ...rest } = row;
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) if (value !== null) state[key] = value;
  return {
    ...(state as unknown as ExecutionState),
    current_attempt: live_attempt,
    callback_attempts: live_callback_attempts,
    queued_at: iso(row.queued_at)!,
    updated_at: iso(row.updated_at)!,
    ...(row.started_at ? { started_at: iso(row.started_at)! } : {}),
    ...(row.completed_at ? { completed_at: iso(row.completed_at)! } : {}),
  };
}
