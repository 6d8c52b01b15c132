import {
  ActivityFailure,
  CancelledFailure,
  proxyLocalActivities,
  setHandler,
  sleep,
  TemporalFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookActivities, SendResult } from '../activities/webhooks';
import { deliveryStatusQuery, type DeliverWebhookInput, type DeliveryState } from '../contracts/deliver-webhook';
import {
  DATABASE_ACTIVITY_RETRY,
  failedWith,
  NON_RETRYABLE_FAILURE_TYPES,
  storageFailure,
} from '../contracts/failures';
import { attemptChanges, verdictOnOwnFailure } from '../domain/webhooks/delivery-steps';
import { judgeAttempt, type AttemptVerdict, type DeliveryFailureReason } from '../domain/webhooks/rules';

type Activities = ReturnType<typeof createWebhookActivities>;

// Short Postgres writes: local activities, without a round trip through the server for each.
const { projectDelivery, recordDeliveryAttempt } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});

// The POST is a local activity as well: a delivered event then costs one workflow task instead of two
// and an activity task, which is most of what fan-out costs the Temporal server. It never throws for the
// receiver's answers (those are results, recorded as markers in the history); its own retries cover our
// side (the database). A worker lost mid-POST fails the workflow task, which another worker runs again.
const { sendDelivery } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: NON_RETRYABLE_FAILURE_TYPES,
  },
});

/**
 * Delivers one event to one subscription: POSTs it, and on failure waits on a durable timer (the
 * schedule, with jitter, at least any Retry-After) and tries again, until it is delivered, the schedule
 * is spent, or the endpoint is gone or disabled. Every attempt is logged; the state is projected. An
 * attempt or state that cannot be stored fails the delivery, with the reason as its failure_reason.
 */
export async function deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliveryState> {
  const now = () => new Date().toISOString();
  const state: DeliveryState = {
    delivery_id: input.delivery_id,
    version: 1,
    subscription_id: input.subscription_id,
    event_id: input.event.id,
    event: input.event.event,
    status: 'pending',
    attempts: 0,
    replay_of: input.replay_of,
    created_at: new Date(workflowInfo().startTime).toISOString(),
    updated_at: now(),
  };
  setHandler(deliveryStatusQuery, () => state);
  /** The state as last stored, which a failure leaves in the read model. */
  let stored: DeliveryState | undefined;

  const change = (changes: Partial<DeliveryState>) =>
    Object.assign(state, changes, { version: state.version + 1, updated_at: now() });
  /** Writes the state as it is now; what cannot be stored fails the delivery, and says why wherever it is read. */
  const store = async <T>(write: (snapshot: DeliveryState) => Promise<T>): Promise<T> => {
    const snapshot = { ...state };
    try {
      const result = await write(snapshot);
      stored = snapshot;
      return result;
    } catch (error) {
      const failed = storageFailure(error);
      if (!failed) throw error;
      const failedChanges = {
        status: 'failed',
        failure_reason: failed.type,
        last_error: failed.message,
        next_attempt_at: undefined,
        completed_at: now(),
      } as const;
      change(failedChanges);
      if (stored)
        await projectDelivery({
          ...stored,
          ...failedChanges,
          version: state.version,
          updated_at: state.updated_at,
        }).catch(() => undefined);
      throw failedWith(failed);
    }
  };
  const finish = async (status: 'succeeded' | 'failed' | 'cancelled', failure_reason?: DeliveryFailureReason) => {
    change({ status, failure_reason, next_attempt_at: undefined, completed_at: now() });
    await store(projectDelivery);
    return state;
  };

  await store(projectDelivery);
  for (;;) {
    const attempt = state.attempts + 1;
    const sent = await send(input, attempt);
    if (sent.kind === 'inactive') return finish('cancelled', sent.reason);

    const verdict: AttemptVerdict =
      sent.kind === 'sent'
        ? judgeAttempt(sent.outcome, attempt, input.schedule, Math.random())
        : verdictOnOwnFailure(input.schedule, attempt, Math.random());
    const observedAt = now();
    const nextAttemptAt =
      verdict.kind === 'retry' ? new Date(Date.now() + verdict.delay_seconds * 1000).toISOString() : undefined;
    change(
      attemptChanges(attempt, sent.kind === 'sent' ? sent.outcome : { error: sent.error }, verdict, {
        observed_at: observedAt,
        next_attempt_at: nextAttemptAt,
      }),
    );
    const recorded = await store((snapshot) =>
      recordDeliveryAttempt({
        state: snapshot,
        sent,
        verdict,
        observed_at: observedAt,
        next_attempt_at: nextAttemptAt,
      }),
    );
    if (verdict.kind !== 'retry') return state;
    if (recorded.endpoint_disabled) return finish('failed', 'endpoint_disabled');
    await sleep(verdict.delay_seconds * 1000);
  }
}

async function send(input: DeliverWebhookInput, attempt: number): Promise<SendResult> {
  try {
    return await sendDelivery({
      delivery_id: input.delivery_id,
      subscription_id: input.subscription_id,
      event: input.event,
      attempt,
    });
  } catch (error) {
    // A local activity's failure arrives as its own cause (ApplicationFailure, TimeoutFailure), not wrapped.
    if (!(error instanceof TemporalFailure) || error instanceof CancelledFailure) throw error;
    return {
      kind: 'error',
      error: (error instanceof ActivityFailure ? error.cause?.message : undefined) ?? error.message,
    };
  }
}
