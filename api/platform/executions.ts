import type { KeyRing } from '../../services/identity/issuance/key-ring';
import type { TokenSettings } from '../../services/identity/authentication/tokens';
import { executionFromRow, listExecutionAttempts, listExecutions } from '../../db/executions';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { listCallbackSigningSecrets, rotateCallbackSigningSecret } from '../../services/executions/callback-secrets';
import {
  cancelExecution,
  readExecution,
  reportProgress,
  type ExecutionUpdateOutcome,
} from '../../services/executions/control';
import { verifyProgressToken } from '../../services/executions/progress-token';
import { executionView } from '../../services/executions/view';
import { principalDid } from '../../lib/ids';
import { listRoute } from '../list-route';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  CallbackSecretListSchema,
  CallbackSecretSchema,
  CancelExecutionSchema,
  EXECUTION_SORTABLE,
  ExecutionDetailSchema,
  ExecutionIdParamsSchema,
  ExecutionSchema,
  ListExecutionsQuerySchema,
  ProgressReportSchema,
} from '../schemas/executions';

function updated(outcome: ExecutionUpdateOutcome) {
  if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
  return executionView(outcome.execution);
}

export function registerExecutionRoutes(
  api: ApiBuilder,
  deps: PlatformServiceDeps & { keyRing: KeyRing; token: TokenSettings },
): void {
  listRoute(api, {
    path: '/v1/executions',
    operationId: 'listExecutions',
    summary: 'List executions',
    tags: ['Executions'],
    auth: 'platform:read',
    rateLimit: 'default',
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

  api.route({
    method: 'get',
    path: '/v1/executions/{execution_id}',
    operationId: 'getExecution',
    summary: 'Read an execution (poll it for progress and the result)',
    tags: ['Executions'],
    auth: 'platform:read',
    rateLimit: 'default',
    request: { params: ExecutionIdParamsSchema },
    responses: {
      200: { description: 'The execution with its attempt log', schema: ExecutionDetailSchema },
      404: { description: 'No such execution' },
    },
    handler: async ({ params, principal }) => {
      const execution = await readExecution(deps, principal.organization_id, params.execution_id);
      if (!execution) throw new Problem('execution_not_found', `No execution ${params.execution_id}`);
      return {
        status: 200,
        body: {
          ...executionView(execution),
          attempts: (await listExecutionAttempts(deps.db, params.execution_id)).map(
            ({ execution_id: _id, started_at, finished_at, ...attempt }) => ({
              ...attempt,
              started_at: started_at.toISOString(),
              finished_at: finished_at?.toISOString() ?? null,
            }),
          ),
        },
      };
    },
  });

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

  api.route({
    method: 'post',
    path: '/v1/callback-secrets',
    operationId: 'rotateCallbackSecret',
    summary: 'Create (or rotate) the secret that signs your executions’ callbacks',
    description:
      'The secret is shown once. Callbacks carry X-Svc-Signature: t=<unix>,v1=<HMAC-SHA256 hex of `<t>.<raw body>`>, one v1 per live secret; ' +
      'after a rotation the previous secrets sign too until previous_secrets_expire_at.',
    tags: ['Executions'],
    auth: 'platform:write',
    rateLimit: 'default',
    // The answer holds the secret, which must not be stored for replay.
    idempotency: false,
    responses: {
      201: { description: 'The new secret', schema: CallbackSecretSchema },
      503: { description: 'SECRETS_ENCRYPTION_KEY is not configured' },
    },
    handler: async ({ principal }) => {
      const rotated = await rotateCallbackSigningSecret(deps.db, principal, {
        graceSeconds: deps.settings.callbackSecretGraceSeconds,
        secretKeys: deps.settings.secretKeys,
      });
      if (!rotated.ok)
        throw new Problem(
          'secrets_unavailable',
          'Callback signing secrets are sealed with SECRETS_ENCRYPTION_KEY, which this deployment has not configured',
        );
      return { status: 201, body: rotated.secret };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/callback-secrets',
    operationId: 'listCallbackSecrets',
    summary: 'Your live callback signing secrets (without the secrets)',
    tags: ['Executions'],
    auth: 'platform:read',
    rateLimit: 'default',
    responses: { 200: { description: 'Live secrets, newest first', schema: CallbackSecretListSchema } },
    handler: async ({ principal }) => ({
      status: 200,
      body: { data: await listCallbackSigningSecrets(deps.db, principal.organization_id, principal.id) },
    }),
  });
}
