import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { recordAttemptFinished, recordAttemptStarted } from '../db/executions';
import { judgeAgentAnswer, resultObject } from '../domain/executions/outbound-answers';
import { postJson, type PostOutcome } from '../lib/outbound/post';
import { DELIVERY_ID_HEADER } from '../lib/outbound/signature';
import type { OutboundGuard } from '../lib/outbound/url-guard';
import { createKeyRing, type KeyRing } from '../services/identity/issuance/key-ring';
import { issueProgressToken } from '../services/executions/progress-token';
import type { AgentAnswer } from '../contracts/execute-agent';
import { attemptFailure, cancellationOutcome, describeAnswer } from './execution-attempts';
import { whileHeartbeating } from './heartbeats';
import type { PlatformWorkerSettings, WorkerSettings } from './settings';

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

const HEARTBEAT_EVERY_MS = 1000;
/** A progress token outlives its attempt by this much, for a report sent just as the attempt ends. */
const PROGRESS_TOKEN_GRACE_SECONDS = 300;

type FinishAttempt = (result: string, error?: string) => Promise<void>;

/** The agent's answer as the execution's result, or the failure it ends the attempt with (logged first). */
async function agentResult(
  call: AgentInvocation,
  outcome: PostOutcome,
  attempt: number,
  resultLimitBytes: number,
  finished: FinishAttempt,
): Promise<unknown> {
  const verdict = judgeAgentAnswer(outcome);
  if (verdict.kind !== 'success') {
    await finished(verdict.kind === 'retry' ? 'retryable_failure' : 'failed', describeAnswer(outcome));
    throw attemptFailure(
      verdict,
      `${call.agent_uri} ${describeAnswer(outcome)}`,
      { attempt, status: outcome.status },
      outcome.retryAfterSeconds,
    );
  }
  if (outcome.responseTruncated) {
    await finished('failed', `result larger than ${resultLimitBytes} bytes`);
    throw attemptFailure(
      { kind: 'give_up', reason: 'agent_result_too_large' },
      `${call.agent_uri} answered with more than ${resultLimitBytes} bytes`,
      { attempt, status: outcome.status },
    );
  }
  try {
    return outcome.responseSnippet ? JSON.parse(outcome.responseSnippet) : undefined;
  } catch {
    await finished('failed', 'answer is not JSON');
    throw attemptFailure(
      { kind: 'give_up', reason: 'agent_answer_invalid' },
      `${call.agent_uri} answered ${outcome.status ?? 'without a status'} with a body that is not JSON`,
      { attempt, status: outcome.status },
    );
  }
}

/** The call with its progress token, POSTed while heartbeating. */
async function postCall(
  call: AgentInvocation,
  context: Context,
  deps: { keyRing: KeyRing; platform: PlatformWorkerSettings; guard: OutboundGuard },
): Promise<PostOutcome> {
  const { keyRing, platform, guard } = deps;
  const { attempt } = context.info;
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
  return whileHeartbeating(context, HEARTBEAT_EVERY_MS, () =>
    postJson(call.endpoint_url, body, {
      timeoutMs: call.timeout_ms,
      guard,
      signal: context.cancellationSignal,
      responseLimitBytes: platform.agentResultLimitBytes,
      headers: { [DELIVERY_ID_HEADER]: `${call.execution_id}:${attempt}` },
    }),
  );
}

/**
 * The invokeAgent activity. One attempt of an agent call: POSTs the call to the agent's endpoint with a
 * progress token, heartbeats while the agent works (so a lost worker is noticed and the call retried, and a
 * cancel reaches it), and logs the attempt. A 2xx JSON answer is the result; 5xx, 408, 429 and no answer are
 * retried (honouring Retry-After); other 4xx and refused destinations end the execution.
 */
export function createInvokeAgent(deps: { db: Knex; settings: WorkerSettings; guard: OutboundGuard }) {
  const { db, guard } = deps;
  const { platform } = deps.settings;
  const keyRing = createKeyRing(db, { secretKeys: platform.secretKeys });

  return async function invokeAgent(call: AgentInvocation): Promise<AgentAnswer> {
    const context = Context.current();
    const { attempt } = context.info;
    await recordAttemptStarted(db, { execution_id: call.execution_id, kind: 'agent', attempt, started_at: new Date() });
    const outcome = await postCall(call, context, { keyRing, platform, guard });
    const finished: FinishAttempt = (result, error) =>
      recordAttemptFinished(db, {
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
    const parsed = await agentResult(call, outcome, attempt, platform.agentResultLimitBytes, finished);
    await finished('succeeded');
    return { result: resultObject(parsed), attempt };
  };
}
