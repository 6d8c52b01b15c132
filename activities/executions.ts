import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { liveCallbackSecrets } from '../db/callback-secrets';
import { recordAttemptFinished, recordAttemptStarted, upsertExecutionProjection } from '../db/executions';
import { appendProvenance } from '../db/ledger';
import {
  judgeAgentAnswer,
  judgeCallbackAnswer,
  resultObject,
  type AnswerVerdict,
} from '../domain/executions/outbound-answers';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { WorkerSettings } from './settings';
import { createKeyRing } from '../services/identity/issuance/key-ring';
import { openCallbackSecrets } from '../services/executions/callback-secrets';
import { issueProgressToken } from '../services/executions/progress-token';
import { executionView } from '../services/executions/view';
import { postJson, type PostOutcome } from '../lib/outbound/post';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../lib/outbound/signature';
import { createOutboundGuard } from '../lib/outbound/url-guard';
import type { AgentAnswer, AttemptFailureDetails, ExecutionState } from '../contracts/execute-agent';
import { withInvalidDataFailures } from './failures';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

export interface AgentInvocation {
  execution_id: string;
  agent_uri: string;
  endpoint_url: string;
  timeout_ms: number;
  capability_uri: string;
  parameters: Record<string, unknown>;
  requester_passport_id: string;
  task_id?: string | undefined;
}

export interface CallbackDelivery {
  execution_id: string;
  url: string;
  /** The principal whose callback signing secrets (in its organization; absent: the default one) sign it. */
  requested_by: string;
  organization_id?: string | undefined;
  timeout_ms: number;
  event: string;
  execution: ExecutionState;
}

const HEARTBEAT_EVERY_MS = 1000;
/** A progress token outlives its attempt by this much, for a report sent just as the attempt ends. */
const PROGRESS_TOKEN_GRACE_SECONDS = 300;

/** The failure an attempt ends with: retried per the activity's policy unless the verdict is to give up. */
function attemptFailure(
  verdict: Exclude<AnswerVerdict, { kind: 'success' }>,
  message: string,
  details: AttemptFailureDetails,
  retryAfterSeconds?: number,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: verdict.reason,
    message,
    details: [details],
    nonRetryable: verdict.kind === 'give_up',
    ...(retryAfterSeconds !== undefined && verdict.kind === 'retry'
      ? { nextRetryDelay: retryAfterSeconds * 1000 }
      : {}),
  });
}

function describe(outcome: PostOutcome): string {
  if (outcome.status !== undefined)
    return `HTTP ${outcome.status}${outcome.responseSnippet ? `: ${outcome.responseSnippet.slice(0, 200)}` : ''}`;
  return outcome.error ?? 'no answer';
}

/**
 * The activity was cancelled mid-call: by the execution's cancel (the cancellation is confirmed), or by its
 * worker shutting down, which must not end the execution: that attempt fails, retryably, and another worker
 * takes the next one.
 */
function cancellationOutcome(signal: AbortSignal, attempt: number): Error {
  const reason = signal.reason as unknown;
  if (reason instanceof CancelledFailure && reason.message === 'WORKER_SHUTDOWN') {
    return ApplicationFailure.create({
      type: 'worker_shutdown',
      message: 'The worker shut down during the call',
      details: [{ attempt } satisfies AttemptFailureDetails],
    });
  }
  return reason instanceof Error ? reason : new CancelledFailure('cancelled');
}

export function createExecutionActivities(deps: { db: Knex; settings: WorkerSettings }) {
  const guard = createOutboundGuard(deps.settings.outbound.policy);
  const keyRing = createKeyRing(deps.db, { secretKeys: deps.settings.platform.secretKeys });
  const { platform } = deps.settings;

  return withInvalidDataFailures({
    /** One transition of an execution: provenance and events, then the read model with the record's id. */
    async recordExecutionStep(step: {
      provenance: AppendProvenanceInput;
      state: ExecutionState;
      organization_id?: string | undefined;
    }): Promise<LedgerAnchor> {
      const organizationId = step.organization_id ?? DEFAULT_ORGANIZATION_ID;
      const anchor = await appendProvenance(deps.db, { ...step.provenance, organization_id: organizationId });
      await upsertExecutionProjection(deps.db, { ...step.state, provenance_id: anchor.transaction_id }, organizationId);
      return anchor;
    },

    /** Progress between transitions: the read model only. */
    async projectExecution(state: ExecutionState, organizationId?: string): Promise<void> {
      await upsertExecutionProjection(deps.db, state, organizationId ?? DEFAULT_ORGANIZATION_ID);
    },

    /**
     * One attempt of an agent call: POSTs the call to the agent's endpoint with a progress token, heartbeats
     * while the agent works (so a lost worker is noticed and the call retried, and a cancel reaches it), and
     * logs the attempt. A 2xx JSON answer is the result; 5xx, 408, 429 and no answer are retried (honouring
     * Retry-After); other 4xx and refused destinations end the execution.
     */
    async invokeAgent(call: AgentInvocation): Promise<AgentAnswer> {
      const context = Context.current();
      const { attempt } = context.info;
      const startedAt = new Date();
      await recordAttemptStarted(deps.db, {
        execution_id: call.execution_id,
        kind: 'agent',
        attempt,
        started_at: startedAt,
      });
      const token = await issueProgressToken(keyRing, platform.token, {
        execution_id: call.execution_id,
        agent_uri: call.agent_uri,
        attempt,
        ttlSeconds: Math.ceil(call.timeout_ms / 1000) + PROGRESS_TOKEN_GRACE_SECONDS,
      });
      const body = JSON.stringify({
        execution_id: call.execution_id,
        attempt,
        agent_uri: call.agent_uri,
        capability_uri: call.capability_uri,
        parameters: call.parameters,
        requester_passport_id: call.requester_passport_id,
        task_id: call.task_id ?? null,
        progress: { url: `${platform.publicBaseUrl}/v1/executions/${call.execution_id}/progress`, token },
      });
      const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      let outcome: PostOutcome;
      try {
        outcome = await postJson(call.endpoint_url, body, {
          timeoutMs: call.timeout_ms,
          guard,
          signal: context.cancellationSignal,
          responseLimitBytes: platform.agentResultLimitBytes,
          headers: { [DELIVERY_ID_HEADER]: `${call.execution_id}:${attempt}` },
        });
      } finally {
        clearInterval(heartbeat);
      }
      const finished = (result: string, error?: string) =>
        recordAttemptFinished(deps.db, {
          execution_id: call.execution_id,
          kind: 'agent',
          attempt,
          outcome: result,
          status_code: outcome.status,
          error,
          duration_ms: outcome.durationMs,
        });

      if (context.cancellationSignal.aborted) {
        await finished('cancelled', (context.cancellationSignal.reason as Error | undefined)?.message ?? 'cancelled');
        throw cancellationOutcome(context.cancellationSignal, attempt);
      }
      const verdict = judgeAgentAnswer(outcome);
      if (verdict.kind !== 'success') {
        await finished(verdict.kind === 'retry' ? 'retryable_failure' : 'failed', describe(outcome));
        throw attemptFailure(
          verdict,
          `${call.agent_uri} ${describe(outcome)}`,
          { attempt, status: outcome.status },
          outcome.retryAfterSeconds,
        );
      }
      if (outcome.responseTruncated) {
        await finished('failed', `result larger than ${platform.agentResultLimitBytes} bytes`);
        throw attemptFailure(
          { kind: 'give_up', reason: 'agent_result_too_large' },
          `${call.agent_uri} answered with more than ${platform.agentResultLimitBytes} bytes`,
          { attempt, status: outcome.status },
        );
      }
      let parsed: unknown;
      try {
        parsed = outcome.responseSnippet ? JSON.parse(outcome.responseSnippet) : undefined;
      } catch {
        await finished('failed', 'answer is not JSON');
        throw attemptFailure(
          { kind: 'give_up', reason: 'agent_answer_invalid' },
          `${call.agent_uri} answered ${outcome.status ?? 'without a status'} with a body that is not JSON`,
          { attempt, status: outcome.status },
        );
      }
      await finished('succeeded');
      return { result: resultObject(parsed), attempt };
    },

    /**
     * One attempt to POST an execution's outcome to its callback_url, signed like webhooks (X-Svc-Signature
     * with one v1 per live callback secret of the caller) with the same delivery id on every attempt, so the
     * receiver can drop duplicates.
     */
    async deliverCallback(delivery: CallbackDelivery): Promise<{ attempt: number; status: number }> {
      const { attempt } = Context.current().info;
      await recordAttemptStarted(deps.db, {
        execution_id: delivery.execution_id,
        kind: 'callback',
        attempt,
        started_at: new Date(),
      });
      const secrets = await liveCallbackSecrets(
        deps.db,
        delivery.organization_id ?? DEFAULT_ORGANIZATION_ID,
        delivery.requested_by,
      );
      if (secrets.length === 0) {
        await recordAttemptFinished(deps.db, {
          execution_id: delivery.execution_id,
          kind: 'callback',
          attempt,
          outcome: 'failed',
          error: 'no callback signing secret',
          duration_ms: 0,
        });
        throw attemptFailure(
          { kind: 'give_up', reason: 'callback_secret_missing' },
          'The caller has no live callback signing secret',
          { attempt },
        );
      }
      let signingSecrets: string[];
      try {
        signingSecrets = openCallbackSecrets(secrets, platform.secretKeys);
      } catch (error) {
        // A key taken out of the configuration too early: retried, so the callback goes once the key is back.
        await recordAttemptFinished(deps.db, {
          execution_id: delivery.execution_id,
          kind: 'callback',
          attempt,
          outcome: 'retryable_failure',
          error: (error as Error).message,
          duration_ms: 0,
        });
        throw error;
      }
      const body = JSON.stringify({
        id: `${delivery.execution_id}:callback`,
        type: delivery.event,
        created_at: new Date().toISOString(),
        data: executionView(delivery.execution),
      });
      const outcome = await postJson(delivery.url, body, {
        timeoutMs: delivery.timeout_ms,
        guard,
        headers: {
          [SIGNATURE_HEADER]: signatureHeader(signingSecrets, Math.floor(Date.now() / 1000), body),
          [DELIVERY_ID_HEADER]: `${delivery.execution_id}:callback`,
        },
      });
      const verdict = judgeCallbackAnswer(outcome);
      await recordAttemptFinished(deps.db, {
        execution_id: delivery.execution_id,
        kind: 'callback',
        attempt,
        outcome: verdict.kind === 'success' ? 'succeeded' : verdict.kind === 'retry' ? 'retryable_failure' : 'failed',
        status_code: outcome.status,
        error: verdict.kind === 'success' ? undefined : describe(outcome),
        duration_ms: outcome.durationMs,
      });
      if (verdict.kind !== 'success')
        throw attemptFailure(
          verdict,
          `${delivery.url} ${describe(outcome)}`,
          { attempt, status: outcome.status },
          outcome.retryAfterSeconds,
        );
      return { attempt, status: outcome.status! };
    },
  });
}
