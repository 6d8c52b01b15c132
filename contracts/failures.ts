import { ApplicationFailure, CancelledFailure, TemporalFailure, type RetryPolicy } from '@temporalio/workflow';

/**
 * Every ApplicationFailure type the project raises, in one list: update refusals that the API turns into
 * problems, and activity failures that retrying cannot fix. A workflow or activity names its failure from
 * here, never with a string of its own.
 */
export const FAILURE_TYPES = {
  // Update refusals (the API maps each to the problem of the same code).
  routingNotAwaitingReview: 'routing_not_awaiting_review',
  reviewerNotAssigned: 'reviewer_not_assigned',
  routingClosed: 'routing_closed',
  routingNotQueued: 'routing_not_queued',
  approvalNotPending: 'approval_not_pending',
  executionNotCancellable: 'execution_not_cancellable',
  executionNotProcessing: 'execution_not_processing',
  invalidPeriod: 'invalid_period',
  recoveryNotCollecting: 'recovery_not_collecting',
  recoveryNotGuardian: 'recovery_not_guardian',
  recoveryApprovalReplayed: 'recovery_approval_replayed',
  recoveryApprovalOtherRequest: 'recovery_approval_other_request',
  recoveryCredentialMismatch: 'recovery_credential_mismatch',
  recoveryNotCancellable: 'recovery_not_cancellable',
  recoveryNotAwaitingConfirmation: 'recovery_not_awaiting_confirmation',
  // Activity failures that no retry can mend.
  invalidData: 'invalid_data',
  secretsUnavailable: 'secrets_unavailable',
  noSigningSecret: 'no_signing_secret',
  notificationRefused: 'notification_refused',
  // How a workflow states that it could not store its state: the read model's failure, the workflow's own.
  storageFailed: 'storage_failed',
} as const;

export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];

/** Activity failures that end the attempt at once: the same input would fail the same way again. */
export const NON_RETRYABLE_FAILURE_TYPES: FailureType[] = [
  FAILURE_TYPES.invalidData,
  FAILURE_TYPES.secretsUnavailable,
  FAILURE_TYPES.noSigningSecret,
];

/**
 * The retry policy of an activity that writes to Postgres: backs off to a minute and gives up after about
 * an hour of failures, so an error retrying cannot fix ends the workflow in a stated failure instead of
 * retrying for ever.
 */
export const DATABASE_ACTIVITY_RETRY: RetryPolicy = {
  initialInterval: '100 ms',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 70,
  nonRetryableErrorTypes: NON_RETRYABLE_FAILURE_TYPES,
};

/** Refuses an Update (from its validator or its handler) with a failure of this type, when there is a reason to. */
export function refuseWith(type: FailureType, reason: string | undefined): void {
  if (reason !== undefined) throw ApplicationFailure.create({ type, message: reason, nonRetryable: true });
}

/** Why a workflow failed, as its state, its query and its read model say. */
export interface WorkflowFailure {
  type: typeof FAILURE_TYPES.invalidData | typeof FAILURE_TYPES.storageFailed;
  message: string;
}

/**
 * What a failed database activity means for its workflow: invalid data as the activity named it, anything
 * else (its retries spent) as storage that failed. Undefined for a cancellation, which is no failure.
 */
export function storageFailure(error: unknown): WorkflowFailure | undefined {
  if (!(error instanceof TemporalFailure) || error instanceof CancelledFailure) return undefined;
  for (let cause: unknown = error; cause instanceof TemporalFailure; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && cause.type === FAILURE_TYPES.invalidData)
      return { type: FAILURE_TYPES.invalidData, message: cause.message };
  }
  return {
    type: FAILURE_TYPES.storageFailed,
    message: `The database did not take the change within its retries: ${error.message}`,
  };
}

/** The failure a workflow ends with once it has stated it: the same type and message, for callers and the Temporal UI. */
export function failedWith(failure: WorkflowFailure): ApplicationFailure {
  return ApplicationFailure.create({ type: failure.type, message: failure.message, nonRetryable: true });
}
