import type { Knex } from 'knex';
import { RISK_LEVELS } from '../../domain/routing/risk';
import type { SecretKeys } from '../../lib/secret-box';
import { readNotificationPolicy, saveNotificationPolicy } from '../../services/notifications/policy';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { z } from '../schemas/zod';

const NotificationPolicySchema = z
  .object({
    slack_webhook_configured: z
      .boolean()
      .openapi({ description: 'Whether notifications are posted to a Slack webhook' }),
    passkey_required_above: z.enum(RISK_LEVELS).nullable().openapi({
      description:
        'Decisions on requests of a higher risk must be signed with a passkey in the inbox: their e-mails and Slack posts carry no decision links',
    }),
    updated_at: z.string().nullable(),
  })
  .openapi('NotificationPolicy');

const PutNotificationPolicySchema = z
  .object({
    slack_webhook_url: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .nullable()
      .optional()
      .openapi({
        description:
          'A Slack incoming-webhook URL (kept sealed, never shown); null removes it; left out keeps the one stored',
        example: 'https://hooks.slack.com/services/T000/B000/XXXX',
      }),
    passkey_required_above: z.enum(RISK_LEVELS).nullable().default(null),
  })
  .strict()
  .openapi('PutNotificationPolicy');

/** The caller's organization's notification policy: its Slack webhook, and when a decision needs a passkey signature. */
export function registerNotificationPolicyRoutes(api: ApiBuilder, deps: { db: Knex; secretKeys: SecretKeys }): void {
  const policy = routeGroup(api, { tags: ['Decision links'], auth: 'platform:admin', rateLimit: 'default' });
  policy.route({
    method: 'get',
    path: '/v1/notification-policy',
    operationId: 'getNotificationPolicy',
    summary: 'The organization’s notification policy',
    responses: { 200: { description: 'The policy', schema: NotificationPolicySchema } },
    handler: async ({ principal }) => ({
      status: 200,
      body: await readNotificationPolicy(deps.db, principal.organization_id),
    }),
  });
  policy.route({
    method: 'put',
    path: '/v1/notification-policy',
    operationId: 'putNotificationPolicy',
    summary: 'Replace the organization’s notification policy',
    request: { body: PutNotificationPolicySchema },
    responses: {
      200: { description: 'The policy as stored', schema: NotificationPolicySchema },
      422: { description: 'notification_policy_invalid: the webhook URL cannot be sealed' },
    },
    handler: async ({ principal, body }) => {
      const saved = await saveNotificationPolicy(deps, principal.organization_id, body);
      if (!saved.ok) throw new Problem('notification_policy_invalid', saved.detail);
      return { status: 200, body: saved.policy };
    },
  });
}
