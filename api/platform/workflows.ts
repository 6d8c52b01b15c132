import type { Knex } from 'knex';
import type { DagState } from '../../contracts/run-dag';
import { dagFromRow, findDagById, listDags } from '../../db/dags';
import { dagStats } from '../../domain/dags/graph';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { createDag, workflowTrace } from '../../services/dags/dags';
import { principalDid, resourceId } from '../../lib/ids';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
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

type Trace = Awaited<ReturnType<typeof workflowTrace>>;

function traceView(workflow: DagState, records: Trace) {
  return {
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
  };
}

/** The reads of one workflow answer the same 404. */
const MISSING = {
  code: 'workflow_not_found',
  description: 'No such workflow',
  detail: ({ params }: { params: { workflow_id: string } }) => `No workflow ${params.workflow_id}`,
} as const;

async function findWorkflow(db: Knex, organizationId: string, workflowId: string) {
  const row = await findDagById(db, organizationId, workflowId);
  return row && dagFromRow(row);
}

/** Workflow DAGs: started, listed, read whole or as statistics, and traced through the ledger. */
export function registerWorkflowRoutes(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const workflows = routeGroup(api, { tags: ['Workflows'], auth: 'platform:read', rateLimit: 'default' });
  registerCreateWorkflow(workflows, deps);
  registerWorkflowReads(workflows, deps.db);
  registerWorkflowProvenance(workflows, deps.db);
}

function registerCreateWorkflow(workflows: RouteGroup, deps: PlatformServiceDeps): void {
  workflows.route({
    method: 'post',
    path: '/v1/workflows',
    operationId: 'createWorkflow',
    summary: 'Run a workflow DAG of agent calls, approvals and conditions',
    description:
      'Validated whole before anything runs (acyclic, edges between its nodes, conditions that parse, agent calls the agents accept). Runs as ' +
      'a Temporal workflow: nodes in dependency order, independent branches in parallel; agent nodes as executions and approval nodes as ' +
      'approvals (each its own workflow, linked by execution_id / approval_id). The first failed node fails the workflow; the rest are skipped.',
    auth: 'platform:write',
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
}

function registerWorkflowReads(workflows: RouteGroup, db: Knex): void {
  workflows.list({
    path: '/v1/workflows',
    operationId: 'listWorkflows',
    summary: 'List workflows',
    query: ListWorkflowsQuerySchema,
    page: {
      description: 'A page of workflows, newest first by default',
      item: WorkflowSummarySchema,
      name: 'WorkflowPage',
    },
    sort: { allowed: { created_at: 'created_at' }, fallback: '-created_at', uniqueKey: 'workflow_id' },
    list: ({ query, principal, page }) => listDags(db, principal.organization_id, page, query),
    view: (row) => workflowSummary(dagFromRow(row)),
  });

  workflows.get({
    params: WorkflowIdParamsSchema,
    path: '/v1/workflows/{workflow_id}',
    operationId: 'getWorkflow',
    summary: 'Read a workflow’s full DAG: nodes, edges and statistics',
    found: { description: 'The workflow', schema: WorkflowDetailSchema },
    missing: MISSING,
    find: ({ params, principal }) => findWorkflow(db, principal.organization_id, params.workflow_id),
    view: workflowDetail,
  });

  workflows.get({
    params: WorkflowIdParamsSchema,
    path: '/v1/workflows/{workflow_id}/stats',
    operationId: 'getWorkflowStats',
    summary: 'A workflow’s statistics',
    found: { description: 'Counts per node status and durations', schema: DagStatsSchema },
    missing: MISSING,
    find: ({ params, principal }) => findWorkflow(db, principal.organization_id, params.workflow_id),
    view: (workflow) => dagStats(workflow.nodes),
  });
}

function registerWorkflowProvenance(workflows: RouteGroup, db: Knex): void {
  workflows.get({
    params: WorkflowIdParamsSchema,
    path: '/v1/workflows/{workflow_id}/provenance',
    operationId: 'getWorkflowProvenance',
    summary: 'A workflow’s provenance trace: its own records and those of its nodes’ executions and approvals',
    description: 'In ledger order. The events of these records are read at /v1/events.',
    rateLimit: 'provenance-queries',
    found: { description: 'The trace', schema: WorkflowTraceSchema },
    missing: MISSING,
    find: async ({ params, principal }) => {
      const workflow = await findWorkflow(db, principal.organization_id, params.workflow_id);
      return workflow && { workflow, records: await workflowTrace(db, principal.organization_id, workflow) };
    },
    view: ({ workflow, records }) => traceView(workflow, records),
  });
}
