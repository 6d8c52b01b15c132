import type { KeyRing } from '../../services/identity/issuance/key-ring';
import type { TokenSettings } from '../../services/identity/authentication/actor';
import { executionFromRow, listExecutionAttempts, listExecutions, type AttemptRow } from '../../db/executions';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import {
  cancelExecution,
  readExecution,
  reportProgress,
  type ExecutionUpdateOutcome,
} from '../../services/executions/control';
import { verifyProgressToken } from '../../services/executions/progress-token';
import { executionView } from '../../services/executions/view';
import { principalDid } from '../../lib/ids';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  CancelExecutionSchema,
  EXECUTION_SORTABLE,
  ExecutionDetailSchema,
  ExecutionIdParamsSchema,
  ExecutionSchema,
  ListExecutionsQuerySchema,
  ProgressReportSchema,
} from '../schemas/executions';
import { registerCallbackSecretRoutes } from './callback-secrets';

type ExecutionRouteDeps = PlatformServiceDeps & { keyRing: KeyRing; token: TokenSettings };

function updated(outcome: ExecutionUpdateOutcome) {
  if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
  return executionView(outcome.execution);
}

function attemptView({ execution_id: _id, started_at, finished_at, ...attempt }: AttemptRow) {
  return { ...attempt, started_at: started_at.toISOString(), finished_at: finished_at?.toISOString() ?? null };
}

/** Executions (listed, read, cancelled, and the agent's progress reports), then the secrets that sign their callbacks. */
export function registerExecutionRoutes(api: ApiBuilder, deps: ExecutionRouteDeps): void {
  registerExecutionReads(api, deps);
  registerCancel(api, deps);
  registerProgress(api, deps);
  registerCallbackSecretRoutes(api, deps);
}

function registerExecutionReads(api: ApiBuilder, deps: PlatformServiceDeps): void {
  const executions = routeGroup(api, { tags: ['Executions'], auth: 'platform:read', rateLimit: 'default' });
  executions.list({
    path: '/v1/executions',
    operationId: 'listExecutions',
    summary: 'List executions',
    query: ListExecutionsQuerySchema,
    page: {
      description: 'A page of executions, newest first by default',
      item: ExecutionSchema,
      name: 'ExecutionPage',
    },
    sort: { allowed: EXECUTION_SORTABLE, fallback: '-queued_at', uniqueKey: 'e.execution_id' },
    list: ({ query, principal, page }) => listExecutions(deps.db, principal.organization_id, page, query),
    view: (row) => executionView(executionFromRow(row)),
  });

  executions.get({
    path: '/v1/executions/{execution_id}',
    operationId: 'getExecution',
    summary: 'Read an execution (poll it for progress and the result)',
    params: ExecutionIdParamsSchema,
    found: { description: 'The execution with its attempt log', schema: ExecutionDetailSchema },
    missing: {
      code: 'execution_not_found',
      description: 'No such execution',
      detail: ({ params }) => `No execution ${params.execution_id}`,
    },
    find: async ({ params, principal }) => {
      const execution = await readExecution(deps, principal.organization_id, params.execution_id);
      return execution && { execution, attempts: await listExecutionAttempts(deps.db, params.execution_id) };
    },
    view: ({ execution, attempts }) => ({ ...executionView(execution), attempts: attempts.map(attemptView) }),
  });
}

function registerCancel(api: ApiBuilder, deps: PlatformServiceDeps): void {
  api.route({
    method: 'post',
    path: '/v1/executions/{execution_id}/cancel',
    operationId: 'cancelExecution',
    summary: 'Cancel a queued or processing execution',
    description:
      'Delivered as an Update: stops whatever the execution waits for (its approval, which is cancelled with it, or the agent’s HTTP call, ' +
      'which is aborted) and answers once it is recorded as cancelled. 409 when it has already finished. Without cancelled_by, the caller cancels it.',
    tags: ['Executions'],
    auth: 'platform:write',
    rateLimit: 'default',
    request: { params: ExecutionIdParamsSchema, body: CancelExecutionSchema },
    responses: {
      200: { description: 'The cancelled execution', schema: ExecutionSchema },
      404: { description: 'No such execution' },
      409: { description: 'The execution has already completed, failed or been cancelled' },
    },
    handler: async ({ params, body, principal }) => ({
      status: 200,
      body: updated(
        await cancelExecution(deps, principal.organization_id, params.execution_id, {
          cancelled_by: body.cancelled_by ?? principalDid(principal.id),
          reason: body.reason,
          principal: principal.id,
        }),
      ),
    }),
  });
}

function registerProgress(api: ApiBuilder, deps: ExecutionRouteDeps): void {
  api.route({
    method: 'post',
    path: '/v1/executions/{execution_id}/progress',
    operationId: 'reportExecutionProgress',
    summary: 'The agent reports progress on the call it is working on',
    description:
      'Authenticated with the progress token the agent received in its invocation (`Authorization: Bearer <progress.token>`), good for that ' +
      'execution and attempt only. Delivered to the execution as an Update; 409 once the execution no longer processes that attempt.',
    tags: ['Executions'],
    auth: 'public',
    rateLimit: 'default',
    request: { params: ExecutionIdParamsSchema, body: ProgressReportSchema },
    responses: {
      200: { description: 'The execution with the progress recorded', schema: ExecutionSchema },
      401: { description: 'No progress token, or not one for this execution' },
      409: { description: 'The execution is not processing this attempt' },
    },
    handler: async ({ req, params, body }) => {
      const token = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!token)
        throw new Problem('invalid_progress_token', 'Send the progress token of the invocation as a bearer token', {
          headers: { 'WWW-Authenticate': 'Bearer realm="handoff-progress"' },
        });
      const check = await verifyProgressToken(deps.keyRing, deps.token, token, params.execution_id);
      if (!check.ok)
        throw new Problem('invalid_progress_token', check.reason, {
          headers: { 'WWW-Authenticate': 'Bearer realm="handoff-progress", error="invalid_token"' },
        });
      return {
        status: 200,
        body: updated(await reportProgress(deps, params.execution_id, { attempt: check.grant.attempt, ...body })),
      };
    },
  });
}
