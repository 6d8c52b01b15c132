import { decideByLink, type DecideDeps } from '../../services/notifications/decide';
import { slackActionOf, verifySlackSignature } from '../../services/notifications/slack';
import { isLinkAction } from '../../domain/notifications/links';
import { rawBodyOf } from '../middleware/form-body';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';

const SlackActionSchema = z
  .object({
    payload: z.string().max(60_000).openapi({ description: 'The interaction payload (JSON, type block_actions)' }),
  })
  .openapi('SlackInteraction');

const SlackAnswerSchema = z
  .object({
    response_type: z.literal('ephemeral'),
    replace_original: z.boolean(),
    text: z.string(),
  })
  .openapi('SlackInteractionAnswer');

/** The text Slack shows the person for each outcome of a button. */
const ANSWERS: Record<string, string> = {
  link_not_found: 'This button is not known.',
  link_used: 'This button has already been used.',
  link_expired: 'This button has expired.',
  item_decided: 'This request has already been decided.',
  not_the_person: 'This request is not yours to decide.',
  passkey_required: 'Your organization asks for a passkey signature on this decision: decide in your inbox.',
  decision_refused: 'The decision was refused; try again from your inbox.',
};

export function registerSlackActionRoutes(
  api: ApiBuilder,
  deps: DecideDeps & { slackSigningSecret?: string | undefined },
): void {
  api.route({
    method: 'post',
    path: '/v1/slack/actions',
    operationId: 'slackInteraction',
    summary: 'Slack’s interactivity callback: an Approve or Reject button of a notification',
    description:
      'Verified with Slack’s request signing: X-Slack-Signature is v0= and the hex HMAC-SHA256, keyed with SLACK_SIGNING_SECRET, ' +
      'of v0:{X-Slack-Request-Timestamp}:{raw body}, the timestamp within five minutes. The button’s single-use token acts as ' +
      'the person it was sent to, only when the Slack user who clicked is theirs (the reviewer’s slack_user_id); the ' +
      'decision’s provenance names the person and the credential slack_action.',
    tags: ['Decision links'],
    auth: 'public',
    rateLimit: 'default',
    request: {
      body: SlackActionSchema,
      bodyTypes: ['application/x-www-form-urlencoded'],
      headers: z.object({
        'x-slack-signature': z.string().max(200).optional(),
        'x-slack-request-timestamp': z.string().max(20).optional(),
      }),
    },
    responses: {
      200: { description: 'The outcome, shown to the person who clicked', schema: SlackAnswerSchema },
      401: { description: 'slack_signature_invalid: unsigned, badly signed, or signed outside the five-minute window' },
    },
    handler: async ({ req, body, headers }) => {
      const signed = verifySlackSignature(
        deps.slackSigningSecret,
        {
          timestamp: headers['x-slack-request-timestamp'],
          signature: headers['x-slack-signature'],
          rawBody: rawBodyOf(req),
        },
        Math.floor(Date.now() / 1000),
      );
      if (!signed.ok) throw new Problem('slack_signature_invalid', `The request is not Slack's: ${signed.reason}`);
      const action = slackActionOf(body.payload);
      if (!action || !isLinkAction(action.action))
        throw new Problem('validation_failed', 'The payload is no block_actions click of an Approve or Reject button');
      const decided = await decideByLink(deps, action.value, {
        channel: 'slack_action',
        action: action.action,
        slack_user_id: action.user_id,
      });
      const text = decided.ok
        ? `${decided.link.action === 'approve' ? 'Approved' : 'Rejected'}: ${decided.item.summary}`
        : ANSWERS[decided.code]!;
      return { status: 200, body: { response_type: 'ephemeral', replace_original: false, text } };
    },
  });
}
