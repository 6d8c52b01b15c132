import type { ProblemTable } from './table';

/** Webhooks and events. */
export const WEBHOOK_PROBLEMS = {
  webhook_not_found: {
    status: 404,
    title: 'No such webhook subscription',
    remediation: ['List subscriptions with GET /v1/orch/webhooks'],
  },
  webhook_delivery_not_found: {
    status: 404,
    title: 'No such webhook delivery',
    remediation: ['List the subscription’s deliveries with GET /v1/orch/webhooks/{subscription_id}/deliveries'],
  },
  event_not_found: { status: 404, title: 'No such event', remediation: ['List events with GET /v1/events'] },
  webhook_disabled: {
    status: 409,
    title: 'The webhook subscription is disabled',
    remediation: ['Enable the subscription (PATCH with status enabled), then retry'],
  },
  webhook_delivery_in_progress: {
    status: 409,
    title: 'The delivery is still being attempted',
    remediation: ['Wait for the delivery to finish, then replay it if it failed'],
  },
  destination_refused: {
    status: 422,
    title: 'The URL is not a destination the service may call',
    remediation: ['Use a public http(s) URL; private and loopback addresses are refused unless allow-listed'],
  },
  slack_signature_invalid: {
    status: 401,
    title: 'The request is not signed by Slack',
    remediation: [
      'Send X-Slack-Signature and X-Slack-Request-Timestamp as Slack signs them, with the app’s signing secret (SLACK_SIGNING_SECRET)',
      'A request signed more than five minutes from now is refused: check the clocks',
    ],
  },
  notification_policy_invalid: {
    status: 422,
    title: 'The notification policy cannot be stored',
    remediation: [
      'Give a Slack incoming-webhook https URL the service may call',
      'Ask the operator to set SECRETS_ENCRYPTION_KEY',
    ],
  },
  secrets_unavailable: {
    status: 503,
    title: 'Secret encryption is not configured',
    remediation: ['Ask the operator to set SECRETS_ENCRYPTION_KEY', 'Contact support quoting incident_id if it is set'],
  },
} as const satisfies ProblemTable;
