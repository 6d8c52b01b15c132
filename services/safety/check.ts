import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { insertSafetyCheck } from '../../db/safety';
import type { AgentProfile } from '../../domain/agents/agents';
import type { OutboxEvent } from '../../domain/provenance/records';
import type { RequiredCapability } from '../../domain/routing/decision';
import type { RuleOfThreesAnalysis } from '../../domain/safety/rule-of-threes';
import type { SafetyActor, Violation } from '../../domain/safety/boundaries';
import { assessAction, type RequiredAction } from '../../domain/safety/verdict';
import type { Principal } from '../identity/scopes';
import { recordedBy } from '../identity/authentication/recorded-by';
import { domainConfigFor } from './domains';

export interface SafetyCheckRequest {
  action: string;
  context: Record<string, unknown>;
  actor: SafetyActor;
}

export interface SafetyCheckResult {
  boundary_check_id: string;
  allowed: boolean;
  domain: string;
  risk_level: string;
  risk_score: number;
  boundaries_checked: number;
  violations: Violation[];
  waived: string[];
  required_action: RequiredAction;
  recommended_capabilities: RequiredCapability[];
  rule_of_threes_analysis: RuleOfThreesAnalysis;
}

/** Both event kinds of the spec for one violation, with what it concerned. */
export function violationEvents(violations: readonly Violation[], about: Record<string, unknown>): OutboxEvent[] {
  return violations.flatMap((violation) => {
    const data = { ...about, ...violation };
    return [
      { event: 'safety.violation' as const, data },
      { event: 'safety.boundary_violation' as const, data },
    ];
  });
}

/**
 * Checks an action against its domain's boundaries, the actor's constraints and the Rule of Threes, and
 * records the check with its provenance and one pair of events per violation in one transaction, so that
 * agent performance and audits count it.
 */
export async function runSafetyCheck(
  db: Knex,
  request: SafetyCheckRequest,
  agent: AgentProfile | null,
  principal: Principal,
): Promise<SafetyCheckResult> {
  const { domain, config } = await domainConfigFor(db, principal.organization_id, {
    task_type: request.action,
    context: request.context,
  });
  const { risk, evaluation, threes, verdict } = assessAction({
    action: request.action,
    context: request.context,
    actor: request.actor,
    agent,
    config,
    domain,
  });
  const result: SafetyCheckResult = {
    boundary_check_id: `bc_${randomUUID()}`,
    allowed: verdict.allowed,
    domain,
    risk_level: risk.level,
    risk_score: risk.score,
    boundaries_checked: evaluation.boundaries_checked,
    violations: evaluation.violations,
    waived: evaluation.waived,
    required_action: verdict.required_action,
    recommended_capabilities: evaluation.recommended_capabilities,
    rule_of_threes_analysis: threes,
  };
  await recordSafetyCheck(db, request, result, principal);
  return result;
}

/** The check's row, its provenance and one pair of events per violation, in one transaction. */
async function recordSafetyCheck(
  db: Knex,
  request: SafetyCheckRequest,
  result: SafetyCheckResult,
  principal: Principal,
): Promise<void> {
  const { boundary_check_id, domain } = result;
  const agent_id = request.actor.agent_id ?? null;
  await db.transaction(async (trx) => {
    await insertSafetyCheck(trx, {
      organization_id: principal.organization_id,
      boundary_check_id,
      agent_id,
      actor_type: request.actor.type,
      action: request.action,
      domain,
      allowed: result.allowed,
      violation_count: result.violations.length,
      result: { ...result },
      requested_by: principal.id,
    });
    await appendProvenance(trx, {
      entry: {
        subject_id: boundary_check_id,
        step_id: 'safety_check',
        timestamp: new Date().toISOString(),
        actor: recordedBy(principal),
        action: 'safety_checked',
        input_data: { ...request },
        output_data: { ...result },
        reasoning: `${result.violations.length} of ${result.boundaries_checked} boundaries crossed in ${domain}; Rule of Threes ${result.rule_of_threes_analysis.overall_assessment}; ${result.required_action}`,
      },
      events: violationEvents(result.violations, { boundary_check_id, agent_id, action: request.action, domain }),
      organization_id: principal.organization_id,
    });
  });
}
