import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import type { AnswerVerdict } from '../domain/executions/outbound-answers';
import type { PostOutcome } from '../lib/outbound/post';
import type { AttemptFailureDetails } from '../contracts/execute-agent';

/** The failure an attempt ends with: retried per the activity's policy unless the verdict is to give up. */
export function attemptFailure(
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

export function describeAnswer(outcome: PostOutcome): string {
  if (outcome.status !== undefined)
    return `HTTP ${outcome.status}${outcome.responseSnippet ? `: ${outcome.responseSnippet.slice(0, 200)}` : ''}`;
  return outcome.error ?? 'no answer';
}

/**
 * The activity was cancelled mid-call: by the execution's cancel (the cancellation is confirmed), or by its
 * worker shutting down, which must not end the execution: that attempt fails, retryably, and another worker
 * takes the next one.
 */
export function cancellationOutcome(signal: AbortSignal, attempt: number): Error {
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
