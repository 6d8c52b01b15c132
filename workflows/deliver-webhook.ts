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

const now = () => new Date().toISOString();

/**
 * Delivers one event to one subscription: POSTs it, and on failure waits on a durable timer (the
 * schedule, with jitter, at least any Retry-After) and tries again, until it is delivered, the schedule
 * is spent, or the endpoint is gone or disabled. Every attempt is logged; the state is projected. An
 * attempt or state that cannot be stored fails the delivery, with the reason as its failure_reason.
 */
export async function deliverWebhookWorkflow(input: DeliverWebhookInput): Promise<DeliveryState> {
  const delivery = deliveryState(input);
  const { state } = delivery;
  setHandler(deliveryStatusQuery, () => state);

  await delivery.record(projectDelivery);
  for (;;) {
    const attempt = state.attempts + 1;
    const sent = await send(input, attempt);
    if (sent.kind === 'inactive') return finish(delivery, 'cancelled', sent.reason);
    const verdict: AttemptVerdict =
      sent.kind === 'sent'
        ? judgeAttempt(sent.outcome, attempt, input.schedule, Math.random())
        : verdictOnOwnFailure(input.schedule, attempt, Math.random());
    const recorded = await recordAttempt(delivery, attempt, sent, verdict);
    if (verdict.kind !== 'retry') return state;
    if (recorded.endpoint_disabled) return finish(delivery, 'failed', 'endpoint_disabled');
    await sleep(verdict.delay_seconds * 1000);
  }
}

/** The delivery pending, before its first attempt. */
function deliveryState(input: DeliverWebhookInput): RecordedState<DeliveryState> {
  return new RecordedState<DeliveryState>(
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
}

/** An attempt and what it leaves on the delivery, recorded together; the answer says whether the endpoint was disabled. */
function recordAttempt(
  delivery: RecordedState<DeliveryState>,
  attempt: number,
  sent: Exclude<SendResult, { kind: 'inactive' }>,
  verdict: AttemptVerdict,
) {
  const observed_at = now();
  const next_attempt_at =
    verdict.kind === 'retry' ? new Date(Date.now() + verdict.delay_seconds * 1000).toISOString() : undefined;
  const answer = sent.kind === 'sent' ? sent.outcome : { error: sent.error };
  delivery.change(attemptChanges(attempt, answer, verdict, { observed_at, next_attempt_at }));
  return delivery.record((state) => recordDeliveryAttempt({ state, sent, verdict, observed_at, next_attempt_at }));
}

/** The delivery ends without a further attempt: stopped, or failed with the endpoint disabled. */
async function finish(
  delivery: RecordedState<DeliveryState>,
  status: 'failed' | 'cancelled',
  failure_reason: DeliveryFailureReason,
): Promise<DeliveryState> {
  delivery.change({ status, failure_reason, next_attempt_at: undefined, completed_at: now() });
  await delivery.record(projectDelivery);
  return delivery.state;
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
