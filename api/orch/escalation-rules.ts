import type { Knex } from 'knex';
import { enabledRules, findRule, listRules, type EscalationRuleRow } from '../../db/escalation-rules';
import { analyzeRule, RULE_PRIORITIES, type RuleFinding } from '../../domain/rules/escalation-rules';
import {
  changeRule,
  createRule,
  dryRun,
  removeRule,
  type RuleWriteResult,
} from '../../services/rules/escalation-rules';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { listQuerySchema } from '../schemas/common';
import {
  CreateRuleSchema,
  DryRunResponseSchema,
  DryRunSchema,
  PatchRuleSchema,
  RuleSchema,
  RuleWriteResponseSchema,
} from '../schemas/escalation-rules';
import { z } from '../schemas/zod';

const RuleParamsSchema = z.object({ rule_id: z.string().regex(/^er_[0-9a-f-]{36}$/, 'must be a rule id (er_…)') });
const ListRulesQuerySchema = listQuerySchema.extend({
  enabled: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional(),
  priority: z.enum(RULE_PRIORITIES).optional(),
});
const SORTABLE = { created_at: 'created_at', rule_name: 'rule_name', priority: 'priority', updated_at: 'updated_at' };

function render(row: EscalationRuleRow) {
  const { estimated_trigger_rate, ...basis } = row.trigger_rate;
  return {
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    description: row.description,
    conditions: row.conditions,
    actions: row.actions,
    priority: row.priority,
    enabled: row.enabled,
    status: row.enabled ? 'active' : 'disabled',
    applies_to: row.applies_to,
    estimated_trigger_rate,
    trigger_rate_basis: basis,
    version: row.version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A write's answer, or the problem of its failure. */
function written(result: RuleWriteResult, ruleId?: string) {
  if (result.ok) return { ...render(result.rule), findings: result.findings };
  if (result.code === 'rule_not_found')
    throw new Problem('rule_not_found', ruleId ? `No escalation rule ${ruleId}` : 'No such escalation rule');
  if (result.code === 'invalid_rule') {
    throw new Problem('validation_failed', result.errors.map((error) => error.message).join('; '), {
      errors: result.errors.map((error) => ({ ...error, code: 'invalid_rule' })),
    });
  }
  throw conflictProblem(result.findings);
}

function conflictProblem(findings: RuleFinding[]): Problem {
  const blocking = findings.filter((finding) => finding.kind !== 'shadows');
  return new Problem(
    'rule_conflict',
    blocking
      .map(
        (finding) => `${finding.kind.replace('_', ' ')} ${finding.rule_name} (${finding.rule_id}): ${finding.detail}`,
      )
      .join('; '),
    {
      extensions: {
        conflicts: findings,
        resolution:
          'Change priority or conditions, disable the other rule, or send allow_conflicts: true (a routing where they conflict then goes to a human)',
      },
    },
  );
}

export function registerEscalationRuleRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const rules = routeGroup(api, { tags: ['Escalation rules'], auth: 'orch:admin', rateLimit: 'default' });
  registerRuleDrafting(rules, deps);
  registerRuleReads(rules, deps);
  registerRuleChanges(rules, deps);
}

/** Creating a rule, and trying one out without creating it. */
function registerRuleDrafting(rules: RouteGroup, deps: { db: Knex }): void {
  rules.route({
    method: 'post',
    path: '/v1/orch/escalation/rules',
    operationId: 'createEscalationRule',
    summary: 'Create an escalation rule (admin)',
    description:
      'Conditions (all must hold) on risk_level, domain, ai_confidence, task_type, amount or context.<field>, with ==, !=, >, >=, <, <=, in, not_in. ' +
      'Evaluated on every routing; the rules in scope are recorded in its provenance. An enabled rule that conflicts with, or is shadowed by, an enabled ' +
      'rule is refused with 409 rule_conflict unless allow_conflicts is set. estimated_trigger_rate replays the rule on the last 30 days of routings.',
    request: { body: CreateRuleSchema },
    responses: {
      201: { description: 'The rule', schema: RuleWriteResponseSchema },
      409: { description: 'rule_conflict, with conflicts[]' },
    },
    handler: async ({ body, principal }) => {
      const { allow_conflicts, ...definition } = body;
      const result = written(await createRule(deps.db, definition, principal, { allowConflicts: allow_conflicts }));
      return { status: 201, body: result, headers: { Location: `/v1/orch/escalation/rules/${result.rule_id}` } };
    },
  });

  rules.route({
    method: 'post',
    path: '/v1/orch/escalation/rules/dry-run',
    operationId: 'dryRunEscalationRule',
    summary: 'What a rule would do, without creating it: applies_to, trigger rate on the history, and conflicts',
    auth: 'orch:read',
    request: { body: DryRunSchema },
    responses: { 200: { description: 'The dry run', schema: DryRunResponseSchema } },
    handler: async ({ body, principal }) => {
      const measured = await dryRun(deps.db, principal.organization_id, body);
      const findings = analyzeRule(
        { rule_id: 'er_dry_run', rule_name: 'dry run', ...body },
        await enabledRules(deps.db, principal.organization_id),
      );
      const { estimated_trigger_rate, ...basis } = measured.trigger_rate;
      return {
        status: 200,
        body: { applies_to: measured.applies_to, estimated_trigger_rate, trigger_rate_basis: basis, findings },
      };
    },
  });
}

function registerRuleReads(rules: RouteGroup, deps: { db: Knex }): void {
  rules.list({
    path: '/v1/orch/escalation/rules',
    operationId: 'listEscalationRules',
    summary: 'List escalation rules',
    auth: 'orch:read',
    query: ListRulesQuerySchema,
    page: { description: 'A page of rules', item: RuleSchema, name: 'EscalationRulePage' },
    sort: { allowed: SORTABLE, fallback: 'created_at', uniqueKey: 'rule_id' },
    list: ({ query, principal, page }) => listRules(deps.db, principal.organization_id, page, query),
    view: render,
  });

  rules.get({
    path: '/v1/orch/escalation/rules/{rule_id}',
    operationId: 'getEscalationRule',
    summary: 'Read an escalation rule',
    auth: 'orch:read',
    params: RuleParamsSchema,
    found: { description: 'The rule', schema: RuleSchema },
    missing: { code: 'rule_not_found', detail: ({ params }) => `No escalation rule ${params.rule_id}` },
    find: ({ params, principal }) => findRule(deps.db, principal.organization_id, params.rule_id),
    view: render,
  });
}

function registerRuleChanges(rules: RouteGroup, deps: { db: Knex }): void {
  rules.route({
    method: 'patch',
    path: '/v1/orch/escalation/rules/{rule_id}',
    operationId: 'updateEscalationRule',
    summary: 'Change an escalation rule (admin); checked for conflicts as a new rule is',
    request: { params: RuleParamsSchema, body: PatchRuleSchema },
    responses: {
      200: { description: 'The rule as changed', schema: RuleWriteResponseSchema },
      404: { description: 'rule_not_found' },
      409: { description: 'rule_conflict' },
    },
    handler: async ({ params, body, principal }) => {
      const { allow_conflicts, ...changes } = body;
      return {
        status: 200,
        body: written(
          await changeRule(deps.db, params.rule_id, changes, principal, { allowConflicts: allow_conflicts }),
          params.rule_id,
        ),
      };
    },
  });

  for (const enabled of [true, false]) registerRuleSwitch(rules, deps, enabled);

  rules.route({
    method: 'delete',
    path: '/v1/orch/escalation/rules/{rule_id}',
    operationId: 'deleteEscalationRule',
    summary: 'Delete an escalation rule (admin); its history stays in provenance',
    request: { params: RuleParamsSchema },
    responses: { 204: { description: 'Deleted' }, 404: { description: 'rule_not_found' } },
    handler: async ({ params, principal }) => {
      if (!(await removeRule(deps.db, params.rule_id, principal)))
        throw new Problem('rule_not_found', `No escalation rule ${params.rule_id}`);
      return { status: 204 };
    },
  });
}

/** A rule's enable or disable switch; enabling it checks it for conflicts again, as a new rule is. */
function registerRuleSwitch(rules: RouteGroup, deps: { db: Knex }, enabled: boolean): void {
  const answers = {
    200: { description: 'The rule', schema: RuleWriteResponseSchema },
    404: { description: 'rule_not_found' },
  };
  rules.route({
    method: 'post',
    path: `/v1/orch/escalation/rules/{rule_id}/${enabled ? 'enable' : 'disable'}`,
    operationId: enabled ? 'enableEscalationRule' : 'disableEscalationRule',
    summary: enabled
      ? 'Enable an escalation rule (admin); refused with rule_conflict if it now conflicts'
      : 'Disable an escalation rule (admin)',
    request: { params: RuleParamsSchema },
    responses: enabled ? { ...answers, 409: { description: 'rule_conflict' } } : answers,
    handler: async ({ params, principal }) => ({
      status: 200,
      body: written(
        await changeRule(deps.db, params.rule_id, { enabled }, principal, { allowConflicts: false }),
        params.rule_id,
      ),
    }),
  });
}
