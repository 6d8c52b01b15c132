import { ApplicationFailure } from '@temporalio/activity';
import type { Knex } from 'knex';
import { FAILURE_TYPES } from '../contracts/failures';
import type { NotifyOutcome, NotifyTarget } from '../contracts/notify';
import type { Mailer } from '../lib/mail/transport';
import { SecretsUnavailableError } from '../lib/secret-box';
import { postDecisionToSlack, sendDecisionMail, SlackPostFailed } from '../services/notifications/notify';
import type { NotificationSettings } from '../services/notifications/settings';

/**
 * Telling the person an approval or a routing waits for, each channel an activity of its own so that one
 * retried never sends the other again. Without a mailer (a worker built without one) mail is not configured.
 */
export function createNotificationActivities(deps: {
  db: Knex;
  mailer?: Mailer | undefined;
  settings: { notifications: NotificationSettings };
}) {
  const notifyDeps = (mailer: Mailer) => ({ db: deps.db, mailer, settings: deps.settings.notifications });
  const noMailer: Mailer = { configured: false, send: () => Promise.resolve(), close: () => undefined };
  return {
    /** E-mails the person their approve and reject links (or, under a passkey policy, their inbox). */
    async sendDecisionMail(target: NotifyTarget): Promise<NotifyOutcome> {
      return sendDecisionMail(notifyDeps(deps.mailer ?? noMailer), target);
    },

    /** Posts the item with Approve and Reject buttons to the organization's Slack webhook, if it has one. */
    async postDecisionToSlack(target: NotifyTarget): Promise<NotifyOutcome> {
      try {
        return await postDecisionToSlack(notifyDeps(deps.mailer ?? noMailer), target);
      } catch (error) {
        if (error instanceof SlackPostFailed && error.refused)
          throw ApplicationFailure.create({
            type: FAILURE_TYPES.notificationRefused,
            message: error.message,
            nonRetryable: true,
          });
        if (error instanceof SecretsUnavailableError)
          throw ApplicationFailure.create({
            type: FAILURE_TYPES.secretsUnavailable,
            message: error.message,
            nonRetryable: true,
          });
        throw error;
      }
    },
  };
}
