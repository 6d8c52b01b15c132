import type { RetryPolicy } from '@temporalio/workflow';
import { FAILURE_TYPES } from './failures';

/**
 * What the approval and routing workflows hand the notification activities (activities/notifications.ts):
 * whom to tell about what. The activities read the rest (address, item, policy) when they run.
 */
export type NotifyTarget =
  | { kind: 'approval'; organization_id?: string | undefined; item_id: string; approver: string }
  | { kind: 'routing'; organization_id?: string | undefined; item_id: string; reviewer_did: string };

/** What a send did; one that failed and may pass throws instead, and its activity retries. */
export type NotifyOutcome = 'sent' | 'no_person' | 'no_address' | 'not_waiting' | 'not_configured';

/**
 * Mail and chat servers come back within minutes or not soon: a notification is retried for about half an
 * hour, then given up (the item still waits in the inbox); a destination the address guard refuses at once.
 */
export const NOTIFY_ACTIVITY_RETRY: RetryPolicy = {
  initialInterval: '2 seconds',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 10,
  nonRetryableErrorTypes: [
    FAILURE_TYPES.invalidData,
    FAILURE_TYPES.secretsUnavailable,
    FAILURE_TYPES.notificationRefused,
  ],
};
