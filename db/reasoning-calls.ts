import type { Knex } from 'knex';
import type { ReasoningAttempt, ReasoningCall } from '../contracts/aggregates/reasoning-call';
import type { CompanionWrite } from './ledger';
import { paginate, type Page, type PageRequest } from './pagination';

/** An attempt as it is written: reasoning_attempts' row, created_at set as the call completes. */
export type ReasoningAttemptRow = Omit<ReasoningAttempt, 'created_at'>;

/** A call as the reasoning_calls table stores it: the reasoning call aggregate (contracts/aggregates/reasoning-call.ts). */
export type ReasoningCallRow = ReasoningCall;

/** A call as it starts: every field but its state (open) and when it started, which the insert sets. */
export type OpenCall = Omit<ReasoningCallRow, 'created_at' | 'state'>;

/** The call as it starts: no answer yet, so no model, usage or cost. */
export async function insertOpenCall(db: Knex, call: OpenCall): Promise<void> {
  await db.raw(`insert into reasoning_calls select * from jsonb_populate_record(null::reasoning_calls, ?::jsonb)`, [
    JSON.stringify({ ...call, state: 'open', created_at: new Date().toISOString() }),
  ]);
}

type Outcome = Pick<
  ReasoningCallRow,
  'call_id' | 'success' | 'model_id' | 'provider' | 'input_tokens' | 'output_tokens' | 'cost_usd' | 'duration_ms'
>;

/**
 * The open call completed with its outcome and attempts, as writes that run in the statement appending its
 * provenance record. Only a still-open call is completed: after the sweep closed it, nothing changes (and the
 * record, keyed like the sweep's, is not appended twice).
 */
export function completedCallWrites(outcome: Outcome, attempts: readonly ReasoningAttemptRow[]): CompanionWrite {
  const created_at = new Date().toISOString();
  return {
    ctes: `completed_call as (
        update reasoning_calls c set success = o.success, model_id = o.model_id, provider = o.provider, input_tokens = o.input_tokens,
          output_tokens = o.output_tokens, cost_usd = o.cost_usd, duration_ms = o.duration_ms, state = 'recorded'
        from jsonb_populate_record(null::reasoning_calls, ?::jsonb) o
        where c.call_id = o.call_id and c.state = 'open' returning c.call_id),
      inserted_attempts as (insert into reasoning_attempts select a.* from jsonb_populate_recordset(null::reasoning_attempts, ?::jsonb) a join completed_call using (call_id) returning 1)`,
    bindings: [JSON.stringify(outcome), JSON.stringify(attempts.map((attempt) => ({ ...attempt, created_at })))],
  };
}

/** The open call closed as interrupted, in the statement appending the provenance record that says so. */
export function interruptedCallWrite(callId: string): CompanionWrite {
  return {
    ctes: `interrupted_call as (update reasoning_calls set state = 'interrupted' where call_id = ? and state = 'open' returning call_id)`,
    bindings: [callId],
  };
}

/** Calls still open that started before the given time, oldest first. */
export async function openCallsStartedBefore(db: Knex, before: Date, limit: number): Promise<ReasoningCallRow[]> {
  return db<ReasoningCallRow>('reasoning_calls')
    .where('state', 'open')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit);
}

export async function findReasoningCall(
  db: Knex,
  organizationId: string,
  callId: string,
): Promise<ReasoningCallRow | undefined> {
  return db<ReasoningCallRow>('reasoning_calls').where({ organization_id: organizationId, call_id: callId }).first();
}

export async function insertSignal(
  db: Knex,
  signal: {
    signal_id: string;
    call_id: string;
    organization_id: string;
    signal: string;
    note: string | null;
    recorded_by: string;
  },
): Promise<{ created_at: Date }> {
  const rows: Array<{ created_at: Date }> = await db('reasoning_call_signals').insert(signal).returning('created_at');
  return rows[0]!;
}

export interface ModelStatisticsRow {
  complexity: string;
  count: number;
  successes: number;
  avg_latency_ms: number | null;
  avg_cost_usd: number | null;
}

/** Attempts at the model by the organization since the given time, per complexity. */
export async function modelAttemptStatistics(
  db: Knex,
  organizationId: string,
  modelId: string,
  since: Date,
): Promise<ModelStatisticsRow[]> {
  const rows = await db('reasoning_attempts')
    .where({ organization_id: organizationId, model_id: modelId })
    .where('created_at', '>=', since)
    .groupBy('complexity')
    .select(
      'complexity',
      db.raw('count(*)::int as count'),
      db.raw('count(*) filter (where success)::int as successes'),
      db.raw('avg(duration_ms)::float8 as avg_latency_ms'),
      db.raw('avg(cost_usd)::float8 as avg_cost_usd'),
    );
  return rows as ModelStatisticsRow[];
}

/** A call counts as successful when its provider answered and no negative or correction signal was recorded on it. */
const SUCCESSFUL = `c.success and not exists (select 1 from reasoning_call_signals s where s.call_id = c.call_id and s.signal in ('negative', 'correction'))`;

export interface PromptCallTotals {
  total_calls: number;
  avg_tokens: number | null;
  avg_cost_usd: number | null;
  avg_duration_ms: number | null;
  positive_signals: number;
  negative_signals: number;
  rephrases: number;
  corrections: number;
}

export async function promptCallTotals(
  db: Knex,
  organizationId: string,
  promptKey: string,
  since: Date,
  until: Date,
): Promise<PromptCallTotals> {
  const { rows } = await db.raw<{ rows: PromptCallTotals[] }>(
    `select count(*)::int as total_calls,
            avg(c.input_tokens + c.output_tokens)::float8 as avg_tokens,
            avg(c.cost_usd)::float8 as avg_cost_usd,
            avg(c.duration_ms)::float8 as avg_duration_ms,
            coalesce(sum(s.positive), 0)::int as positive_signals,
            coalesce(sum(s.negative), 0)::int as negative_signals,
            coalesce(sum(s.rephrase), 0)::int as rephrases,
            coalesce(sum(s.correction), 0)::int as corrections
     from reasoning_calls c
     left join lateral (
       select count(*) filter (where signal = 'positive') as positive, count(*) filter (where signal = 'negative') as negative,
              count(*) filter (where signal = 'rephrase') as rephrase, count(*) filter (where signal = 'correction') as correction
       from reasoning_call_signals where call_id = c.call_id) s on true
     where c.organization_id = ? and c.prompt_key = ? and c.state <> 'open' and c.created_at >= ? and c.created_at < ?`,
    [organizationId, promptKey, since, until],
  );
  return rows[0]!;
}

export interface PromptModelRow {
  model_id: string;
  provider: string;
  call_count: number;
  successes: number;
  avg_latency_ms: number;
  avg_cost_usd: number;
  avg_tokens: number;
}

/** The prompt's answered calls per model that answered them. */
export async function promptModelBreakdown(
  db: Knex,
  organizationId: string,
  promptKey: string,
  since: Date,
  until: Date,
): Promise<PromptModelRow[]> {
  const { rows } = await db.raw<{ rows: PromptModelRow[] }>(
    `select c.model_id, c.provider, count(*)::int as call_count,
            count(*) filter (where ${SUCCESSFUL})::int as successes,
            avg(c.duration_ms)::float8 as avg_latency_ms, avg(c.cost_usd)::float8 as avg_cost_usd,
            avg(c.input_tokens + c.output_tokens)::float8 as avg_tokens
     from reasoning_calls c
     where c.organization_id = ? and c.prompt_key = ? and c.model_id is not null and c.created_at >= ? and c.created_at < ?
     group by c.model_id, c.provider
     order by c.model_id, c.provider`,
    [organizationId, promptKey, since, until],
  );
  return rows;
}

export interface PromptModelAffinityRow {
  model_id: string;
  provider: string;
  sample_size: number;
  avg_latency_ms: number;
  avg_cost_usd: number;
  avg_tokens: number;
  success_rate: number;
  affinity_score: number;
}

/** Best first; model and provider (the grouping) make the order total, so a page's cursor is a key. */
const AFFINITY_ORDER: PageRequest['sort'] = [
  { column: 'affinity_score', direction: 'desc' },
  { column: 'sample_size', direction: 'desc' },
  { column: 'model_id', direction: 'asc' },
  { column: 'provider', direction: 'asc' },
];

/**
 * Each model's affinity with the prompt, best first, as a keyset page. The score is domain/prompts/statistics.ts
 * affinityScore (success rate × (1 − w + w × cheapest cost / this cost), rounded to 4 places) computed in SQL,
 * in the same float8 operations, so that the page's order is the query's. Models are compared byte-wise
 * (collation "C"), as JavaScript compares strings.
 */
export async function listPromptModelAffinity(
  db: Knex,
  scope: { organizationId: string; promptKey: string; since: Date; until: Date; costEfficiencyWeight: number },
  page: Omit<PageRequest, 'sort'>,
): Promise<Page<PromptModelAffinityRow>> {
  const models = db('reasoning_calls as c')
    .select(
      db.raw('c.model_id collate "C" as model_id'),
      db.raw('c.provider collate "C" as provider'),
      db.raw('count(*)::int as sample_size'),
      db.raw(`(count(*) filter (where ${SUCCESSFUL}))::float8 / count(*) as success_rate`),
      db.raw('avg(c.duration_ms)::float8 as avg_latency_ms'),
      db.raw('avg(c.cost_usd)::float8 as avg_cost_usd'),
      db.raw('avg(c.input_tokens + c.output_tokens)::float8 as avg_tokens'),
    )
    .where({ 'c.organization_id': scope.organizationId, 'c.prompt_key': scope.promptKey })
    .whereNotNull('c.model_id')
    .where('c.created_at', '>=', scope.since)
    .where('c.created_at', '<', scope.until)
    .groupBy('c.model_id', 'c.provider');
  const weight = scope.costEfficiencyWeight;
  const scored = db
    .from(models.as('m'))
    .select(
      'm.*',
      db.raw(
        `floor(m.success_rate * (1 - ?::float8 + ?::float8 * case when m.avg_cost_usd <= 0 then 1 else min(m.avg_cost_usd) over () / m.avg_cost_usd end) * 10000 + 0.5) / 10000 as affinity_score`,
        [weight, weight],
      ),
    );
  const columns = [
    'model_id',
    'provider',
    'sample_size',
    'avg_latency_ms',
    'avg_cost_usd',
    'avg_tokens',
    'success_rate',
    'affinity_score',
  ];
  return paginate<PromptModelAffinityRow>(db.from(scored.as('a')).select(columns), { ...page, sort: AFFINITY_ORDER });
}
