import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { findRoutingById } from '../../db/routings';
import type { AgentProfile } from '../../domain/agents/agents';
import { agentDid, type LedgerAnchor } from '../../domain/provenance/records';
import { assessRisk, isRiskLevel, type RiskAssessment } from '../../domain/routing/risk';
import { actionOf, type RoutingTask } from '../../domain/routing/decision';
import { agentConstraintViolations, type Violation } from '../../domain/safety/boundaries';
import {
  reportConfidenceUpdate,
  type ConfidenceOutcome,
  type ConfidenceReport,
  type DecideOutcome,
} from '../../contracts/route-task';
import type { Principal } from '../identity/scopes';
import { violationEvents } from '../safety/check';
import { domainConfigFor } from '../safety/domains';
import { idempotencyDigest, resourceId } from '../../lib/ids';
import { submitRouting, type RoutingServiceDeps } from './submit';
import { sendRoutingUpdate, type UpdateResult } from './updates';

/**
 * The agent operations: an agent routes its tasks (by its own task id), reports its confidence as it
 * works, asks for a human, and logs what it did into the task's provenance. An agent reaches only its own
 * routings: the routing id derives from the agent and the task id.
 */
export function agentRoutingId(agentId: string, taskId: string): string {
  return resourceId('rt', `agent:${agentId}`, `task:${taskId}`);
}

/** An agent's task: the routing task's fields the agent gives, with what it says of its own ability, named by its own task id. */
export type AgentTask = Pick<
  RoutingTask,
  'task_type' | 'context' | 'ai_confidence' | 'ai_recommendation' | 'required_capabilities' | 'routing_mode'
> &
  Required<Pick<RoutingTask, 'agent_assessment'>> & { task_id: string };

/**
 * Routes an agent's task, in escalation mode unless it asks otherwise, so that the agent can still report
 * confidence or escalate while it works. Routing the same task id again answers with its first decision.
 */
export async function routeAgentTask(
  deps: RoutingServiceDeps,
  agent: AgentProfile,
  principal: Principal,
  task: AgentTask,
): Promise<{ routing_id: string; outcome: DecideOutcome }> {
  const { task_id, ...fields } = task;
  const routing_id = agentRoutingId(agent.agent_id, task_id);
  const outcome = await submitRouting(deps, {
    routing_id,
    request_id: task_id,
    requested_by: principal.id,
    organization_id: principal.organization_id,
    task: {
      ...fields,
      ai_agent_id: agent.agent_id,
      safety_requirements: {},
      escalation_conditions: {},
      routing_mode: task.routing_mode ?? 'escalation',
    },
  });
  return { routing_id, outcome };
}

export interface ConfidenceAnswer {
  outcome: ConfidenceOutcome;
  /** What the agent's constraints forbid it on this task, when it means to act alone. */
  violations: Violation[];
}

/**
 * Reports the agent's confidence to its running routing (the workflow records it and, below 0.70, hands
 * the task to a human). When the agent means to act alone, its current constraints are checked against the
 * task too; a violation is recorded in the routing's provenance with its events.
 */
export async function reportAgentConfidence(
  deps: RoutingServiceDeps,
  organizationId: string,
  agent: AgentProfile,
  report: Omit<ConfidenceReport, 'agent_id'> & { task_id: string },
  updateId: string | undefined,
): Promise<UpdateResult<ConfidenceAnswer>> {
  const routing_id = agentRoutingId(agent.agent_id, report.task_id);
  const sent = await sendRoutingUpdate(
    deps,
    organizationId,
    routing_id,
    reportConfidenceUpdate,
    [{ ...report, agent_id: agent.agent_id }],
    updateId,
  );
  if (!sent.ok) return sent;
  const outcome = sent.result;
  if (!report.proceed_autonomously || outcome.fourth_law_triggered || outcome.human_assigned)
    return { ok: true, result: { outcome, violations: [] } };
  const routing = await findRoutingById(deps.db, organizationId, routing_id);
  if (!routing) return { ok: true, result: { outcome, violations: [] } };
  const { config } = await domainConfigFor(deps.db, organizationId, routing.task);
  const risk = assessRisk(
    { context: routing.task.context, lifeSafetyFlag: routing.task.escalation_conditions.life_safety_flag === true },
    config.risk_thresholds,
  );
  const violations = agentConstraintViolations(agent, actionOf(routing.task), routing.task.context, risk);
  if (violations.length > 0) {
    await appendProvenance(deps.db, {
      entry: {
        subject_id: routing_id,
        step_id: `safety_violation:${randomUUID()}`,
        timestamp: new Date().toISOString(),
        actor: { type: 'ai_agent', agent_id: agent.agent_id, did: agentDid(agent.agent_id) },
        action: 'autonomous_action_refused',
        input_data: { confidence: report.confidence, proceed_autonomously: true },
        output_data: { violations },
        reasoning: `The agent's constraints forbid acting alone on this task: ${violations.map((v) => v.reason).join(', ')}`,
      },
      events: violationEvents(violations, { routing_id, agent_id: agent.agent_id }),
      organization_id: organizationId,
    });
  }
  return { ok: true, result: { outcome, violations } };
}

export interface AgentAction {
  task_id: string;
  action: string;
  input_data: Record<string, unknown>;
  output_data: Record<string, unknown>;
  reasoning: string;
  instance_id?: string | undefined;
}

export interface LoggedAction {
  routing_id: string;
  task_id: string;
  step_id: string;
  logged_at: string;
  ledger_anchor: LedgerAnchor;
  safety_violations: Violation[];
}

/**
 * Appends an action the agent took to its task's provenance, with audit.provenance_logged and, where its
 * constraints forbid the action, the safety events: the record is kept either way, since an auditor must
 * see what the agent did. With an Idempotency-Key the step id derives from it, so a retry finds the first
 * record instead of writing a second.
 */
export async function logAgentAction(
  db: Knex,
  agent: AgentProfile,
  principal: Principal,
  action: AgentAction,
  idempotencyKey: string | undefined,
): Promise<{ ok: true; logged: LoggedAction } | { ok: false; code: 'routing_not_found' }> {
  const routing_id = agentRoutingId(agent.agent_id, action.task_id);
  const routing = await findRoutingById(db, principal.organization_id, routing_id);
  if (!routing) return { ok: false, code: 'routing_not_found' };
  const suffix = idempotencyKey ? idempotencyDigest(principal.id, idempotencyKey) : randomUUID();
  const step_id = `agent_action:${suffix}`;
  const logged_at = new Date().toISOString();
  // The action is judged at the risk its routing was decided at.
  const risk: RiskAssessment = {
    score: 0,
    level: isRiskLevel(routing.risk_level) ? routing.risk_level : 'low',
    factors: [],
  };
  const violations = agentConstraintViolations(
    agent,
    action.action,
    { ...routing.task.context, ...action.input_data },
    risk,
  );
  const ledger_anchor = await appendProvenance(db, {
    organization_id: principal.organization_id,
    entry: {
      subject_id: routing_id,
      step_id,
      timestamp: logged_at,
      actor: {
        type: 'ai_agent',
        agent_id: agent.agent_id,
        did: agentDid(agent.agent_id),
        ...(action.instance_id ? { instance_id: action.instance_id } : {}),
      },
      action: action.action,
      input_data: action.input_data,
      output_data: action.output_data,
      reasoning: action.reasoning,
    },
    events: [
      {
        event: 'audit.provenance_logged',
        data: { routing_id, task_id: action.task_id, agent_id: agent.agent_id, action: action.action, step_id },
      },
      ...violationEvents(violations, { routing_id, agent_id: agent.agent_id, action: action.action }),
    ],
  });
  return {
    ok: true,
    logged: { routing_id, task_id: action.task_id, step_id, logged_at, ledger_anchor, safety_violations: violations },
  };
}
