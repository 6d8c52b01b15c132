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
import { DATABASE_ACTIVITY_RETRY, NON_RETRYABLE_FAILURE_TYPES } from '../contracts/failures';
import { attemptChanges, verdictOnOwnFailure } from '../domain/webhooks/delivery-steps';
import { judgeAttempt, type AttemptVerdict, type DeliveryFailureReason } from '../domain/webhooks/rules';
import { RecordedState } from './recorded-state';

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
  const delivery = new RecordedState<DeliveryState>(
    {
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
    },
    {
      failedChanges: (failure, at) => ({
        status: 'failed',
        failure_reason: failure.type,
        last_error: failure.message,
        next_attempt_at: undefined,
        completed_at: at,
      }),
      projectFailed: projectDelivery,
    },
  );
  const { state } = delivery;
  setHandler(deliveryStatusQuery, () => state);

  const finish = async (status: 'succeeded' | 'failed' | 'cancelled', failure_reason?: DeliveryFailureReason) => {
    delivery.change({ status, failure_reason, next_attempt_at: undefined, completed_at: now() });
    await delivery.record(projectDelivery);
    return state;
  };

  await delivery.record(projectDelivery);
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
    delivery.change(
      attemptChanges(attempt, sent.kind === 'sent' ? sent.outcome : { error: sent.error }, verdict, {
        observed_at: observedAt,
        next_attempt_at: nextAttemptAt,
      }),
    );
    const recorded = await delivery.record((snapshot) =>
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
