import type { Knex } from 'knex';
import type { PeriodInput, TaskTypeOutcomes } from '../domain/agents/performance';

type Period = 'current' | 'previous';

/** A routing in escalation: handed to a human at the decision (foundation routings have no escalated_at) or later. */
const ESCALATED = "(r.escalated_at is not null or r.decision in ('escalate_to_human', 'hybrid_collaboration'))";
const AUTONOMOUS = "(r.decision = 'ai_autonomous' and r.escalated_at is null)";

/**
 * The outcome counts of an agent's routings in the period before `until` of `seconds` and the one before
 * it, by task type, with the reasons it escalated and its safety checks: what agentPerformance needs.
 */
export async function agentOutcomes(
  db: Knex,
  organizationId: string,
  agentId: string,
  until: Date,
  seconds: number,
): Promise<Record<Period, PeriodInput>> {
  const currentStart = new Date(until.getTime() - seconds * 1000);
  const previousStart = new Date(until.getTime() - 2 * seconds * 1000);
  const bindings = { org: organizationId, agent: agentId, current: currentStart, previous: previousStart, until };
  const period = `case when r.created_at >= :current then 'current' else 'previous' end`;
  const [outcomes, reasons, checks] = await Promise.all([
    db.raw<{ rows: Array<TaskTypeOutcomes & { period: Period }> }>(
      `with latest_feedback as (
         select distinct on (routing_id) routing_id, verdict from routing_feedback order by routing_id, created_at desc)
       select r.task_type, ${period} as period,
         count(*)::int as total,
         (count(*) filter (where ${AUTONOMOUS}))::int as autonomous,
         (count(*) filter (where ${ESCALATED}))::int as escalated,
         (count(*) filter (where r.resolution is not null))::int as resolved,
         (count(*) filter (where r.resolution ->> 'outcome' = 'approved'))::int as approved,
         (count(*) filter (where ${AUTONOMOUS} and f.verdict in ('overturned', 'flagged')))::int as overturned,
         (count(*) filter (where ${AUTONOMOUS} and f.verdict = 'confirmed'))::int as confirmed,
         coalesce(sum(r.ai_confidence), 0)::float as confidence_sum,
         coalesce(sum(r.safety_violation_count), 0)::int as safety_violations,
         (count(*) filter (where coalesce((r.decision_result -> 'safety_analysis' ->> 'all_constraints_met')::boolean, false)))::int as boundaries_met
       from routings r left join latest_feedback f using (routing_id)
       where r.organization_id = :org and r.ai_agent_id = :agent and r.created_at >= :previous and r.created_at < :until
       group by 1, 2`,
      bindings,
    ),
    db.raw<{ rows: Array<{ period: Period; reason: string; count: number }> }>(
      `select ${period} as period,
         case when r.decision = 'ai_autonomous' then 'escalated_after_decision' else coalesce(r.reason, 'unknown') end as reason,
         count(*)::int as count
       from routings r
       where r.organization_id = :org and r.ai_agent_id = :agent and r.created_at >= :previous and r.created_at < :until and ${ESCALATED}
       group by 1, 2`,
      bindings,
    ),
    db.raw<{ rows: Array<{ period: Period; total: number; passed: number; violations: number }> }>(
      `select case when created_at >= :current then 'current' else 'previous' end as period,
         count(*)::int as total,
         (count(*) filter (where allowed and violation_count = 0))::int as passed,
         coalesce(sum(violation_count), 0)::int as violations
       from safety_checks
       where organization_id = :org and agent_id = :agent and created_at >= :previous and created_at < :until
       group by 1`,
      bindings,
    ),
  ]);
  const of = (which: Period): PeriodInput => ({
    by_task_type: outcomes.rows.filter((row) => row.period === which).map(({ period: _period, ...row }) => row),
    escalation_reasons: reasons.rows
      .filter((row) => row.period === which)
      .map(({ reason, count }) => ({ reason, count })),
    safety_checks: checks.rows.find((row) => row.period === which) ?? { total: 0, passed: 0, violations: 0 },
  });
  return { current: of('current'), previous: of('previous') };
}
