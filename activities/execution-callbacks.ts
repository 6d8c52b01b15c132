import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { liveCallbackSecrets } from '../db/callback-secrets';
import { recordAttemptFinished, recordAttemptStarted } from '../db/executions';
import { judgeCallbackAnswer } from '../domain/executions/outbound-answers';
import { postJson } from '../lib/outbound/post';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../lib/outbound/signature';
import type { OutboundGuard } from '../lib/outbound/url-guard';
import type { SecretKeys } from '../lib/secret-box';
import { openCallbackSecrets } from '../services/executions/callback-secrets';
import { executionView } from '../services/executions/view';
import type { ExecutionState } from '../contracts/execute-agent';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { attemptFailure, describeAnswer } from './execution-attempts';
import type { WorkerSettings } from './settings';

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

/** The caller's live callback signing secrets, opened; an attempt that cannot have them is logged and fails. */
async function callbackSigningSecrets(
  db: Knex,
  delivery: CallbackDelivery,
  attempt: number,
  secretKeys: SecretKeys,
): Promise<string[]> {
  const failed = (outcome: string, error: string) =>
    recordAttemptFinished(db, {
      execution_id: delivery.execution_id,
      kind: 'callback',
      attempt,
      outcome,
      error,
      duration_ms: 0,
    });
  const secrets = await liveCallbackSecrets(
    db,
    delivery.organization_id ?? DEFAULT_ORGANIZATION_ID,
    delivery.requested_by,
  );
  if (secrets.length === 0) {
    await failed('failed', 'no callback signing secret');
    throw attemptFailure(
      { kind: 'give_up', reason: 'callback_secret_missing' },
      'The caller has no live callback signing secret',
      { attempt },
    );
  }
  try {
    return openCallbackSecrets(secrets, secretKeys);
  } catch (error) {
    // A key taken out of the configuration too early: retried, so the callback goes once the key is back.
    await failed('retryable_failure', (error as Error).message);
    throw error;
  }
}

/**
 * The deliverCallback activity. One attempt to POST an execution's outcome to its callback_url, signed like
 * webhooks (X-Svc-Signature with one v1 per live callback secret of the caller) with the same delivery id on
 * every attempt, so the receiver can drop duplicates.
 */
export function createDeliverCallback(deps: { db: Knex; settings: WorkerSettings; guard: OutboundGuard }) {
  const { db, guard } = deps;
  const { platform } = deps.settings;

  return async function deliverCallback(delivery: CallbackDelivery): Promise<{ attempt: number; status: number }> {
    const { attempt } = Context.current().info;
    await recordAttemptStarted(db, {
      execution_id: delivery.execution_id,
      kind: 'callback',
      attempt,
      started_at: new Date(),
    });
    const signingSecrets = await callbackSigningSecrets(db, delivery, attempt, platform.secretKeys);
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
    await recordAttemptFinished(db, {
      execution_id: delivery.execution_id,
      kind: 'callback',
      attempt,
      outcome: verdict.kind === 'success' ? 'succeeded' : verdict.kind === 'retry' ? 'retryable_failure' : 'failed',
      status_code: outcome.status,
      error: verdict.kind === 'success' ? undefined : describeAnswer(outcome),
      duration_ms: outcome.durationMs,
    });
    if (verdict.kind !== 'success')
      throw attemptFailure(
        verdict,
        `${delivery.url} ${describeAnswer(outcome)}`,
        { attempt, status: outcome.status },
        outcome.retryAfterSeconds,
      );
    return { attempt, status: outcome.status! };
  };
}
