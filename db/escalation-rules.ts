import type { Knex } from 'knex';
import type { Condition, RoutingFacts } from '../domain/rules/conditions';
import type { EscalationRule, RuleAction, RulePriority, TriggerRate } from '../domain/rules/escalation-rules';
import { isRiskLevel } from '../domain/routing/risk';
import { paginate, type Page, type PageRequest } from './pagination';

export interface EscalationRuleRow {
  rule_id: string;
  rule_name: string;
  description: string;
  conditions: Condition[];
  actions: RuleAction[];
  priority: RulePriority;
  enabled: boolean;
  applies_to: string[];
  trigger_rate: TriggerRate & { computed_at: string; window_days: number };
  created_by: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type RuleWrite = Pick<
  EscalationRuleRow,
  'rule_name' | 'description' | 'conditions' | 'actions' | 'priority' | 'enabled' | 'applies_to' | 'trigger_rate'
> & {
  scope_task_types: string[] | null;
  scope_domains: string[] | null;
};

const COLUMNS = [
  'rule_id',
  'rule_name',
  'description',
  'conditions',
  'actions',
  'priority',
  'enabled',
  'applies_to',
  'trigger_rate',
  'created_by',
  'version',
  'created_at',
  'updated_at',
];

const asJson = (rule: Partial<RuleWrite>) => ({
  ...rule,
  ...(rule.conditions ? { conditions: JSON.stringify(rule.conditions) } : {}),
  ...(rule.actions ? { actions: JSON.stringify(rule.actions) } : {}),
  ...(rule.applies_to ? { applies_to: JSON.stringify(rule.applies_to) } : {}),
  ...(rule.trigger_rate ? { trigger_rate: JSON.stringify(rule.trigger_rate) } : {}),
});

/**
 * Every rule change bumps the version a routing records as the rule set it was decided under, and
 * recounts the enabled rules, in the change's transaction.
 */
export async function bumpRuleSetVersion(db: Knex): Promise<number> {
  const [row] = await db('escalation_rule_set')
    .where({ id: 1 })
    .update({
      version: db.raw('version + 1'),
      enabled_rules: db('escalation_rules').count('*').where({ enabled: true }),
    })
    .returning<Array<{ version: number }>>('version');
  return row!.version;
}

export async function insertRule(
  db: Knex,
  rule: RuleWrite & { rule_id: string; created_by: string; organization_id: string },
): Promise<{ row: EscalationRuleRow; rule_set_version: number }> {
  const [row] = await db('escalation_rules').insert(asJson(rule)).returning<EscalationRuleRow[]>(COLUMNS);
  return { row: row!, rule_set_version: await bumpRuleSetVersion(db) };
}

export async function updateRule(
  db: Knex,
  organizationId: string,
  ruleId: string,
  changes: Partial<RuleWrite>,
): Promise<{ row: EscalationRuleRow; rule_set_version: number }> {
  const [row] = await db('escalation_rules')
    .where({ rule_id: ruleId, organization_id: organizationId })
    .update({ ...asJson(changes), version: db.raw('version + 1'), updated_at: db.fn.now() })
    .returning<EscalationRuleRow[]>(COLUMNS);
  return { row: row!, rule_set_version: await bumpRuleSetVersion(db) };
}

export async function deleteRule(db: Knex, organizationId: string, ruleId: string): Promise<number> {
  await db('escalation_rules').where({ rule_id: ruleId, organization_id: organizationId }).delete();
  return bumpRuleSetVersion(db);
}

/** The rule, locked for the rest of the transaction when `forUpdate`. */
export async function findRule(
  db: Knex,
  organizationId: string,
  ruleId: string,
  options: { forUpdate?: boolean } = {},
): Promise<EscalationRuleRow | undefined> {
  const query = db('escalation_rules').select(COLUMNS).where({ rule_id: ruleId, organization_id: organizationId });
  if (options.forUpdate) query.forUpdate();
  const row: unknown = await query.first();
  return row as EscalationRuleRow | undefined;
}

export async function listRules(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { enabled?: boolean | undefined; priority?: RulePriority | undefined },
): Promise<Page<EscalationRuleRow>> {
  const query = db('escalation_rules').select(COLUMNS).where({ organization_id: organizationId });
  if (filter.enabled !== undefined) query.where({ enabled: filter.enabled });
  if (filter.priority) query.where({ priority: filter.priority });
  return paginate<EscalationRuleRow>(query, page);
}

type RuleColumns = Pick<EscalationRuleRow, 'rule_id' | 'rule_name' | 'priority' | 'conditions' | 'actions'>;

const toRule = (row: RuleColumns): EscalationRule => ({
  rule_id: row.rule_id,
  rule_name: row.rule_name,
  priority: row.priority,
  conditions: row.conditions,
  actions: row.actions,
});

/** Every enabled rule, for the static analysis of a new or changed one. */
export async function enabledRules(db: Knex, organizationId: string): Promise<EscalationRule[]> {
  const rows = await db('escalation_rules')
    .select('rule_id', 'rule_name', 'priority', 'conditions', 'actions')
    .where({ enabled: true, organization_id: organizationId })
    .orderBy('rule_id');
  return rows.map(toRule);
}

/**
 * The facts of the routings decided in the last `windowDays` days, newest first and at most `limit`, as
 * they were decided (domain and risk level as recorded), for a dry run of a rule.
 */
export async function routingHistoryFacts(
  db: Knex,
  organizationId: string,
  options: { windowDays: number; limit: number },
): Promise<RoutingFacts[]> {
  const rows = await db('routings')
    .select('task_type', 'domain', 'risk_level', 'ai_confidence', db.raw("task -> 'context' as context"))
    .where({ organization_id: organizationId })
    .whereNotNull('risk_level')
    .where('created_at', '>=', db.raw(`now() - make_interval(days => ?)`, [options.windowDays]))
    .orderBy('created_at', 'desc')
    .limit(options.limit);
  return rows.map(
    (row: {
      task_type: string;
      domain: string | null;
      risk_level: string;
      ai_confidence: number;
      context: Record<string, unknown> | null;
    }) => {
      const context = row.context ?? {};
      return {
        task_type: row.task_type,
        domain: row.domain ?? (typeof context.domain === 'string' ? context.domain : 'general'),
        risk_level: isRiskLevel(row.risk_level) ? row.risk_level : 'low',
        ai_confidence: row.ai_confidence,
        context,
      };
    },
  );
}

/** Task types seen in the history per domain, for a rule's applies_to. */
export async function taskTypesByDomain(db: Knex, organizationId: string): Promise<Map<string, string[]>> {
  const rows = await db('routings')
    .distinct('domain', 'task_type')
    .where({ organization_id: organizationId })
    .whereNotNull('domain');
  const byDomain = new Map<string, string[]>();
  for (const row of rows as Array<{ domain: string; task_type: string }>)
    byDomain.set(row.domain, [...(byDomain.get(row.domain) ?? []), row.task_type]);
  return byDomain;
}

/** Enabled rules that can apply in a domain: those naming it, and those naming no domain. */
export async function countEnabledRulesForDomain(db: Knex, organizationId: string, domain: string): Promise<number> {
  const [row] = await db('escalation_rules')
    .count<{ count: number }[]>({ count: '*' })
    .where({ enabled: true, organization_id: organizationId })
    .andWhere((q) => q.whereNull('scope_domains').orWhereRaw('scope_domains @> array[?]::text[]', [domain]));
  return row?.count ?? 0;
}
