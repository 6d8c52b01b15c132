import { dagFromRow, findDagById, listDags } from '../../db/dags';
import { dagStats } from '../../domain/dags/graph';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { createDag, workflowTrace } from '../../services/dags/dags';
import { principalDid, resourceId } from '../../lib/ids';
import { listRoute } from '../list-route';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  CreateWorkflowSchema,
  DagStatsSchema,
  ListWorkflowsQuerySchema,
  workflowDetail,
  WorkflowDetailSchema,
  WorkflowIdParamsSchema,
  workflowSummary,
  WorkflowSummarySchema,
  WorkflowTraceSchema,
} from '../schemas/workflows';

export function registerWorkflowRoutes(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const find = async (organizationId: string, workflowId: string) => {
    const row = await findDagById(deps.db, organizationId, workflowId);
    if (!row) throw new Problem('workflow_not_found', `No workflow ${workflowId}`);
    return dagFromRow(row);
  };

  api.route({
    method: 'post',
    path: '/v1/workflows',
    operationId: 'createWorkflow',
    summary: 'Run a workflow DAG of agent calls, approvals and conditions',
    description:
      'Validated whole before anything runs (acyclic, edges between its nodes, conditions that parse, agent calls the agents accept). Runs as ' +
      'a Temporal workflow: nodes in dependency order, independent branches in parallel; agent nodes as executions and approval nodes as ' +
      'approvals (each its own workflow, linked by execution_id / approval_id). The first failed node fails the workflow; the rest are skipped.',
    tags: ['Workflows'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { body: CreateWorkflowSchema },
    responses: { 201: { description: 'The running workflow', schema: WorkflowDetailSchema } },
    handler: async ({ req, body, principal }) => {
      const workflow_id = resourceId('wfl', principal.id, req.get('idempotency-key'));
      const outcome = await createDag(
        deps,
        { workflow_id, requested_by: principal.id, organization_id: principal.organization_id },
        { ...body, requester_passport_id: body.requester_passport_id ?? principalDid(principal.id) },
      );
      if (!outcome.ok && 'code' in outcome) throw new Problem(outcome.code, outcome.detail);
      if (!outcome.ok)
        throw new Problem('validation_failed', 'The workflow cannot run as given', { errors: outcome.errors });
      return {
        status: 201,
        body: workflowDetail(outcome.workflow),
        headers: { Location: `/v1/workflows/${workflow_id}` },
      };
    },
  });

  listRoute(api, {
    path: '/v1/workflows',
    operationId: 'listWorkflows',
    summary: 'List workflows',
    tags: ['Workflows'],
    auth: 'platform:read',
    rateLimit: 'default',
    query: ListWorkflowsQuerySchema,
    page: {
      description: 'A page of workflows, newest first by default',
      item: WorkflowSummarySchema,
      name: 'WorkflowPage',
    },
    sort: { allowed: { created_at: 'created_at' }, fallback: '-created_at', uniqueKey: 'workflow_id' },
    list: ({ query, principal, page }) => listDags(deps.db, principal.organization_id, page, query),
    view: (row) => workflowSummary(dagFromRow(row)),
  });

  api.route({
    method: 'get',
    path: '/v1/workflows/{workflow_id}',
    operationId: 'getWorkflow',
    summary: 'Read a workflow’s full DAG: nodes, edges and statistics',
    tags: ['Workflows'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: WorkflowIdParamsSchema },
    responses: {
      200: { description: 'The workflow', schema: WorkflowDetailSchema },
      404: { description: 'No such workflow' },
    },
    handler: async ({ params, principal }) => ({
      status: 200,
      body: workflowDetail(await find(principal.organization_id, params.workflow_id)),
    }),
  });

  api.route({
    method: 'get',
    path: '/v1/workflows/{workflow_id}/stats',
    operationId: 'getWorkflowStats',
    summary: 'A workflow’s statistics',
    tags: ['Workflows'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: WorkflowIdParamsSchema },
    responses: {
      200: { description: 'Counts per node status and durations', schema: DagStatsSchema },
      404: { description: 'No such workflow' },
    },
    handler: async ({ params, principal }) => ({
      status: 200,
      body: dagStats((await find(principal.organization_id, params.workflow_id)).nodes),
    }),
  });

  api.route({
    method: 'get',
    path: '/v1/workflows/{workflow_id}/provenance',
    operationId: 'getWorkflowProvenance',
    summary: 'A workflow’s provenance trace: its own records and those of its nodes’ executions and approvals',
    description: 'In ledger order. The events of these records are read at /v1/events.',
    tags: ['Workflows'],
    auth: 'platform:read',
    rateLimit: 'provenance-queries',
    request: { params: WorkflowIdParamsSchema },
    responses: {
      200: { description: 'The trace', schema: WorkflowTraceSchema },
      404: { description: 'No such workflow' },
    },
    handler: async ({ params, principal }) => {
      const workflow = await find(principal.organization_id, params.workflow_id);
      const records = await workflowTrace(deps.db, principal.organization_id, workflow);
      return {
        status: 200,
        body: {
          workflow_id: workflow.workflow_id,
          records: records.map(({ node_id, entry, anchor }) => ({
            subject_id: entry.subject_id,
            node_id,
            step_id: entry.step_id,
            timestamp: entry.timestamp,
            actor: { ...entry.actor },
            action: entry.action,
            output_data: entry.output_data,
            reasoning: entry.reasoning,
            ledger_anchor: anchor,
          })),
        },
      };
    },
  });
}
