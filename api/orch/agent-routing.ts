import type { RoutingDecisionResult } from '../../contracts/route-task';
import { findRoutingById } from '../../db/routings';
import { routingDecided } from '../../domain/tasks/decision-waits';
import type { AgentProfile } from '../../domain/agents/agents';
import { needsHuman } from '../../domain/routing/decision';
import type { Logger } from '../../lib/logger';
import { MAX_DECISION_WAIT_SECONDS, type DecisionWaits } from '../../services/decisions/waits';
import { agentRoutingId, routeAgentTask, type AgentTask } from '../../services/routing/agent-operations';
import type { RoutingServiceDeps } from '../../services/routing/submit';
import type { Principal } from '../../services/identity/scopes';
import { readAfterWait } from '../decision-wait';
import { Problem, problemTypeUri, type FieldError } from '../problem';
import { fieldErrors } from '../field-errors';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  AgentConfidenceHeadersSchema,
  AgentHeadersSchema,
  AgentRouteRequestSchema,
  AgentRouteResponseSchema,
  AgentTaskParamsSchema,
  BatchRouteItemSchema,
  BatchRouteRequestSchema,
  BatchRouteResponseSchema,
  type BatchRouteItem,
} from '../schemas/agent-operations';
import { DecisionWaitQuerySchema } from '../schemas/decision-wait';
import { RoutingStatusSchema } from '../schemas/routing';
import type { z } from '../schemas/zod';
import { requireCallingAgent, statedConfidence } from './calling-agent';
import { toRoutingStatus } from './routing';

/** Tasks of one batch routed at once; the rest wait their turn. */
const BATCH_CONCURRENCY = 8;

export function registerAgentRoutingRoutes(
  api: ApiBuilder,
  deps: RoutingServiceDeps & { logger: Logger; decisions: DecisionWaits },
): void {
  const agentOperations = routeGroup(api, {
    tags: ['Agent operations'],
    auth: 'orch:agent',
    rateLimit: 'routing-requests',
  });
  // Batch items are parsed one by one (the body only documents them), so the item's schema is registered here.
  api.registry.register('BatchRouteItem', BatchRouteItemSchema);
  registerAgentRoute(agentOperations, deps);
  registerAgentTaskStatusRoute(agentOperations, deps);
  registerBatchRoute(agentOperations, deps);
}

function registerAgentRoute(
  agentOperations: RouteGroup,
  deps: RoutingServiceDeps & { logger: Logger; decisions: DecisionWaits },
): void {
  agentOperations.route({
    method: 'post',
    path: '/v1/orch/route',
    operationId: 'routeAgentTask',
    summary: 'An AI agent asks who handles its task (the Fourth Law: below 0.70 a human takes over)',
    description:
      'The agent is named by X-Agent-ID (or is the owner of the API key) and must be registered and active (agent_not_registered). Its confidence comes ' +
      'from X-Confidence-Score or ai_assessment.confidence; when both are sent they must agree (confidence_mismatch). The task id identifies the task: ' +
      'routing it again answers with its first decision, and /confidence, /escalate and /provenance name it. Routings made here are in escalation ' +
      'mode by default, so an autonomous one stays open to a later escalation. When a human is needed and no available reviewer qualifies, the task ' +
      'waits in the queue (assigned_human null, queued says why) and a human takes over as soon as one is available: the agent must not act on it alone. ' +
      'The Location is the routing (GET /v1/orch/routing/{routing_id}, orch:read); the agent itself reads its task, or waits for the human’s decision ' +
      'on it, with its own key at GET /v1/orch/route/{task_id}.',
    request: { headers: AgentConfidenceHeadersSchema, body: AgentRouteRequestSchema },
    responses: {
      200: { description: 'The routing decision', schema: AgentRouteResponseSchema },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
      422: { description: 'confidence_mismatch' },
    },
    handler: async ({ headers, body, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const confidence = statedConfidence(
        headers['x-confidence-score'],
        body.ai_assessment.confidence,
        'ai_assessment.confidence',
      );
      const { ai_assessment, escalation_recommendation, human_context, ...fields } = body;
      const task: AgentTask = {
        ...fields,
        ai_confidence: confidence,
        agent_assessment: {
          can_handle: ai_assessment.can_handle,
          escalation_recommended: escalation_recommendation,
          uncertainty_reason: ai_assessment.uncertainty_reason,
          human_context,
        },
      };
      const { routing_id, outcome } = await routeAgentTask(deps, agent, principal, task);
      return {
        status: 200,
        body: agentRouteAnswer(task, outcome.decision),
        headers: { Location: `/v1/orch/routing/${routing_id}` },
      };
    },
  });
}

function registerBatchRoute(
  agentOperations: RouteGroup,
  deps: RoutingServiceDeps & { logger: Logger; decisions: DecisionWaits },
): void {
  agentOperations.route({
    method: 'post',
    path: '/v1/orch/batch-route',
    operationId: 'batchRouteAgentTasks',
    summary: 'Route up to 100 of an agent’s tasks at once, each decided on its own',
    description:
      'One routing workflow per task. Each item answers as POST /route does (queued when no qualified reviewer is available), with its index, or ' +
      'fails on its own with a problem while the others stand: validation_failed (400, with the field errors POST /route gives; also a task_id ' +
      'repeated in the batch) or service_unavailable; the reply is 200 with a summary. The batch is idempotent as a whole: each routing id derives ' +
      'from the agent and the task id, so a retried batch reaches the same routings, and an Idempotency-Key replays the first reply.',
    request: { headers: AgentHeadersSchema, body: BatchRouteRequestSchema },
    responses: {
      200: { description: 'One result per task, in order', schema: BatchRouteResponseSchema },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
    },
    handler: async ({ headers, body, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      const results: unknown[] = new Array(body.tasks.length);
      const items = batchItems(body.tasks);
      for (const invalid of items.invalid) results[invalid.index] = invalid;
      let next = 0;
      const worker = async () => {
        for (let at = next++; at < items.valid.length; at = next++) {
          const { index, item } = items.valid[at]!;
          results[index] = await routeBatchItem(deps, { agent, principal }, index, item);
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, items.valid.length) }, worker));
      const routed = results.filter((result) => (result as { status: string }).status === 'routed').length;
      return {
        status: 200,
        body: { data: results, summary: { total: results.length, routed, failed: results.length - routed } },
      };
    },
  });
}

/** One task of a batch, routed as POST /route routes it; a failure is the item's alone, the others stand. */
async function routeBatchItem(
  deps: RoutingServiceDeps & { logger: Logger },
  caller: { agent: AgentProfile; principal: Principal },
  index: number,
  item: BatchRouteItem,
) {
  const { type, confidence, can_handle, escalation_recommendation, human_context, ...fields } = item;
  const task: AgentTask = {
    ...fields,
    task_type: type,
    ai_confidence: confidence,
    agent_assessment: { can_handle, escalation_recommended: escalation_recommendation, human_context },
  };
  try {
    const { outcome } = await routeAgentTask(deps, caller.agent, caller.principal, task);
    return { index, status: 'routed', ...agentRouteAnswer(task, outcome.decision) };
  } catch (error) {
    deps.logger.error('batch item failed', { task_id: item.task_id, agent_id: caller.agent.agent_id, error });
    const unavailable = new Problem(
      'service_unavailable',
      'This task could not be routed now; retry the batch (routed tasks answer with their first decision)',
    );
    return { index, task_id: item.task_id, status: 'failed', error: itemProblem(unavailable) };
  }
}

/** The agent's read of its own task's routing, by its task id, with the long-poll of GET /v1/orch/routing/{routing_id}. */
function registerAgentTaskStatusRoute(
  agentOperations: RouteGroup,
  deps: RoutingServiceDeps & { decisions: DecisionWaits },
): void {
  agentOperations.route({
    method: 'get',
    path: '/v1/orch/route/{task_id}',
    operationId: 'getAgentTaskRouting',
    summary: 'An agent reads, or waits for the human’s decision on, the routing of its own task',
    description:
      'The agent is named as in POST /route (its own API key, or X-Agent-ID for an orch:write caller); the task is the one it routed under this ' +
      'task id. The body is that of GET /v1/orch/routing/{routing_id}, and so is the long-poll: with ?wait=N (seconds, at most ' +
      `${MAX_DECISION_WAIT_SECONDS}) the read answers as soon as the status is completed or expired, or, when the wait ends first, with the routing ` +
      'as it then is. An agent reaches only its own tasks: another agent’s task id, like one it never routed, is 404 routing_not_found.',
    request: { headers: AgentHeadersSchema, params: AgentTaskParamsSchema, query: DecisionWaitQuerySchema },
    responses: {
      200: {
        description: 'The routing status: decided, or, after a wait that ended first, still undecided',
        schema: RoutingStatusSchema,
      },
      403: { description: 'agent_not_registered, or agent_id_mismatch' },
      404: { description: 'routing_not_found: the agent has no routing for this task' },
    },
    handler: async ({ res, headers, params, query, principal }) => {
      const agent = await requireCallingAgent(deps.db, principal, headers['x-agent-id']);
      // The routing id derives from the agent and its task id, so another agent's task is never found.
      const routing_id = agentRoutingId(agent.agent_id, params.task_id);
      const row = await readAfterWait(res, deps.decisions, {
        subject: 'routing',
        id: routing_id,
        seconds: query.wait,
        read: () => findRoutingById(deps.db, principal.organization_id, routing_id),
        decided: (found) => routingDecided(found.status),
      });
      if (!row)
        throw new Problem(
          'routing_not_found',
          `The agent has no routing for task ${params.task_id}; route it with POST /v1/orch/route first`,
        );
      return { status: 200, body: toRoutingStatus(row) };
    },
  });
}

/** The spec's answer to POST /route, with the routing's id and level beside it. */
function agentRouteAnswer(task: AgentTask, decision: RoutingDecisionResult): z.output<typeof AgentRouteResponseSchema> {
  const human = needsHuman(decision.decision);
  const handedOver = [
    task.agent_assessment.human_context,
    task.agent_assessment.uncertainty_reason,
    task.ai_recommendation,
  ].some((text) => typeof text === 'string' && text.length > 0);
  return {
    routing_id: decision.routing_id,
    task_id: task.task_id,
    routing_decision: decision.decision,
    reason: decision.reason,
    assigned_human: human && decision.assigned_to ? decision.assigned_to.did : null,
    ...(decision.queued ? { queued: decision.queued } : {}),
    ai_context_provided: human && handedOver,
    fourth_law_triggered: decision.fourth_law_triggered,
    escalation_level: decision.escalation_level,
    estimated_response_time: decision.estimated_response_time,
  };
}

/**
 * Each item of a batch parsed on its own, as POST /route parses its body: the valid ones with their index,
 * and for each invalid one (or one repeating an earlier task_id) its failed result with the field errors.
 */
function batchItems(tasks: unknown[]) {
  const valid: Array<{ index: number; item: BatchRouteItem }> = [];
  const invalid: Array<{ index: number; task_id?: string; status: 'failed'; error: ReturnType<typeof itemProblem> }> =
    [];
  const first = new Map<string, number>();
  tasks.forEach((raw, index) => {
    const parsed = BatchRouteItemSchema.safeParse(raw, { reportInput: true });
    const named =
      raw !== null && typeof raw === 'object' && typeof (raw as { task_id?: unknown }).task_id === 'string'
        ? { task_id: (raw as { task_id: string }).task_id }
        : {};
    const errors = parsed.success
      ? duplicateOf(parsed.data.task_id, first.get(parsed.data.task_id))
      : fieldErrors(parsed.error, '');
    if (parsed.success && errors.length === 0) {
      first.set(parsed.data.task_id, index);
      valid.push({ index, item: parsed.data });
      return;
    }
    invalid.push({
      index,
      ...named,
      status: 'failed',
      error: itemProblem(
        new Problem('validation_failed', `Task ${index} of the batch has ${errors.length} invalid field(s)`, {
          errors,
        }),
      ),
    });
  });
  return { valid, invalid };
}

function duplicateOf(taskId: string, earlier: number | undefined): FieldError[] {
  return earlier === undefined
    ? []
    : [{ field: 'task_id', code: 'duplicate', message: `${taskId} appears earlier in the batch (index ${earlier})` }];
}

function itemProblem(problem: Problem) {
  const { errors } = problem.options;
  return {
    ...problem.options.extensions,
    type: problemTypeUri(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    ...(errors ? { errors } : {}),
  };
}
