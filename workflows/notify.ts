import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { createNotificationActivities } from '../activities/notifications';
import { NOTIFY_ACTIVITY_RETRY, type NotifyTarget } from '../contracts/notify';

const { sendDecisionMail, postDecisionToSlack } = proxyLocalActivities<ReturnType<typeof createNotificationActivities>>(
  {
    startToCloseTimeout: '30 seconds',
    retry: NOTIFY_ACTIVITY_RETRY,
  },
);

/** Runs that schedule notifications carry this marker; histories from before replay without them. */
const NOTIFICATIONS = 'decision-notifications';

/**
 * Tells the person an item now waits for, by e-mail and Slack, without the run awaiting it: the sends run beside
 * it (each retried on its own), and an item decided meanwhile is not told about (the activity reads it). Local
 * activities: a send takes the time of one SMTP or HTTP exchange, and no activity task round trip is worth it.
 */
export function notifyPerson(target: NotifyTarget): void {
  if (!patched(NOTIFICATIONS)) return;
  void Promise.allSettled([sendDecisionMail(target), postDecisionToSlack(target)]);
}
