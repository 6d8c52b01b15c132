import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  deleteRule,
  enabledRules,
  findRule,
  insertRule,
  routingHistoryFacts,
  taskTypesByDomain,
  updateRule,
  type EscalationRuleRow,
  type RuleWrite,
} from '../../db/escalation-rules';
import { appendProvenance } from '../../db/ledger';
import { listSafetyDomains } from '../../db/safety';
import {
  analyzeRule,
  appliesTo,
  ruleProblems,
  ruleScope,
  triggerRate,
  type RuleFinding,
} from '../../domain/rules/escalation-rules';
import type { Principal } from '../identity/scopes';
import { recordedBy } from '../identity/authentication/recorded-by';

/** The dry run replays the routings of this many days, newest first, up to the limit. */
export const DRY_RUN_WINDOW_DAYS = 30;
export const DRY_RUN_LIMIT = 50_000;

/** What an admin defines; the rest of a rule (scope, applies_to, trigger rate, version) is derived. */
export type RuleDefinition = Pick<
  EscalationRuleRow,
  'rule_name' | 'description' | 'conditions' | 'actions' | 'priority' | 'enabled'
>;

export type RuleFailure =
  | { ok: false; code: 'invalid_rule'; errors: Array<{ field: string; message: string }> }
  | { ok: false; code: 'rule_conflict'; findings: RuleFinding[] }
  | { ok: false; code: 'rule_not_found' };

export type RuleWriteResult = { ok: true; rule: EscalationRuleRow; findings: RuleFinding[] } | RuleFailure;

/** What a rule would do, measured without creating it: its scope, applies_to, and trigger rate on the stored history. */
export async function dryRun(
  db: Knex,
  organizationId: string,
  definition: Pick<RuleDefinition, 'conditions'>,
): Promise<Pick<RuleWrite, 'applies_to' | 'trigger_rate' | 'scope_task_types' | 'scope_domains'>> {
  const scope = ruleScope(definition.conditions);
  const [history, configured, seen] = await Promise.all([
    routingHistoryFacts(db, organizationId, { windowDays: DRY_RUN_WINDOW_DAYS, limit: DRY_RUN_LIMIT }),
    scope.domains ? listSafetyDomains(db, organizationId) : Promise.resolve([]),
    scope.domains ? taskTypesByDomain(db, organizationId) : Promise.resolve(new Map<string, string[]>()),
  ]);
  const taskTypesOf = (domain: string) => [
    ...(configured.find((config) => config.domain === domain)?.task_types ?? []),
    ...(seen.get(domain) ?? []),
  ];
  return {
    applies_to: appliesTo(scope, taskTypesOf),
    trigger_rate: {
      ...triggerRate(definition.conditions, history),
      window_days: DRY_RUN_WINDOW_DAYS,
      computed_at: new Date().toISOString(),
    },
    scope_task_types: scope.task_types,
    scope_domains: scope.domains,
  };
}

/** Rule changes serialize on this lock, so that two conflicting rules cannot both pass the check at once. */
const lockRules = (trx: Knex) => trx.raw("select pg_advisory_xact_lock(hashtext('escalation_rules'))");

/**
 * Blocks an enabled rule that conflicts with or is shadowed by an enabled rule, unless the caller accepts
 * that; `shadows` findings (the rule makes another redundant) are reported, never blocking.
 */
function blocking(findings: RuleFinding[], enabled: boolean, allowConflicts: boolean): boolean {
  return (
    enabled &&
    !allowConflicts &&
    findings.some((finding) => finding.kind === 'conflict' || finding.kind === 'shadowed_by')
  );
}

async function record(
  trx: Knex,
  row: EscalationRuleRow,
  step_id: string,
  action: string,
  principal: Principal,
  input: Record<string, unknown>,
  rule_set_version: number,
): Promise<void> {
  await appendProvenance(trx, {
    entry: {
      subject_id: row.rule_id,
      step_id,
      timestamp: row.updated_at.toISOString(),
      actor: recordedBy(principal),
      action,
      input_data: input,
      output_data: {
        rule: {
          rule_name: row.rule_name,
          conditions: row.conditions,
          actions: row.actions,
          priority: row.priority,
          enabled: row.enabled,
        },
        version: row.version,
        rule_set_version,
      },
      reasoning: `${principal.id}: ${action.replace(/_/g, ' ')} ${row.rule_name}`,
    },
    organization_id: principal.organization_id,
  });
}

export async function createRule(
  db: Knex,
  definition: RuleDefinition,
  principal: Principal,
  options: { allowConflicts: boolean },
): Promise<RuleWriteResult> {
  const errors = ruleProblems(definition);
  if (errors.length > 0) return { ok: false, code: 'invalid_rule', errors };
  const measured = await dryRun(db, principal.organization_id, definition);
  const rule_id = `er_${randomUUID()}`;
  return db.transaction(async (trx): Promise<RuleWriteResult> => {
    await lockRules(trx);
    const findings = analyzeRule({ rule_id, ...definition }, await enabledRules(trx, principal.organization_id));
    if (blocking(findings, definition.enabled, options.allowConflicts))
      return { ok: false, code: 'rule_conflict', findings };
    const { row, rule_set_version } = await insertRule(trx, {
      rule_id,
      created_by: principal.id,
      organization_id: principal.organization_id,
      ...definition,
      ...measured,
    });
    await record(trx, row, 'created', 'escalation_rule_created', principal, { ...definition }, rule_set_version);
    return { ok: true, rule: row, findings };
  });
}

/** Applies changes to a rule (also enabling or disabling it), checking the result as a new rule would be. */
export async function changeRule(
  db: Knex,
  ruleId: string,
  changes: Partial<RuleDefinition>,
  principal: Principal,
  options: { allowConflicts: boolean },
): Promise<RuleWriteResult> {
  const current = await findRule(db, principal.organization_id, ruleId);
  if (!current) return { ok: false, code: 'rule_not_found' };
  const next: RuleDefinition = {
    rule_name: current.rule_name,
    description: current.description,
    conditions: current.conditions,
    actions: current.actions,
    priority: current.priority,
    enabled: current.enabled,
    ...changes,
  };
  const errors = ruleProblems(next);
  if (errors.length > 0) return { ok: false, code: 'invalid_rule', errors };
  const measured = changes.conditions ? await dryRun(db, principal.organization_id, next) : undefined;
  return db.transaction(async (trx): Promise<RuleWriteResult> => {
    await lockRules(trx);
    if (!(await findRule(trx, principal.organization_id, ruleId, { forUpdate: true })))
      return { ok: false, code: 'rule_not_found' };
    const findings = analyzeRule({ rule_id: ruleId, ...next }, await enabledRules(trx, principal.organization_id));
    if (blocking(findings, next.enabled, options.allowConflicts)) return { ok: false, code: 'rule_conflict', findings };
    const { row, rule_set_version } = await updateRule(trx, principal.organization_id, ruleId, {
      ...changes,
      ...measured,
    });
    const action =
      Object.keys(changes).length === 1 && changes.enabled !== undefined
        ? changes.enabled
          ? 'escalation_rule_enabled'
          : 'escalation_rule_disabled'
        : 'escalation_rule_changed';
    await record(trx, row, `v${row.version}`, action, principal, { ...changes }, rule_set_version);
    return { ok: true, rule: row, findings };
  });
}

export async function removeRule(db: Knex, ruleId: string, principal: Principal): Promise<boolean> {
  return db.transaction(async (trx) => {
    await lockRules(trx);
    const row = await findRule(trx, principal.organization_id, ruleId, { forUpdate: true });
    if (!row) return false;
    const rule_set_version = await deleteRule(trx, principal.organization_id, ruleId);
    await record(
      trx,
      { ...row, updated_at: new Date() },
      'deleted',
      'escalation_rule_deleted',
      principal,
      {},
      rule_set_version,
    );
    return true;
  });
}
