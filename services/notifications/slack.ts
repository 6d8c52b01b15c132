import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LinkAction } from '../../domain/notifications/links';
import type { DecisionItem } from './items';

/** Slack's replay window: a request signed more than five minutes from now is refused. */
const SLACK_WINDOW_SECONDS = 5 * 60;

export type SlackSignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Slack's documented request signing: X-Slack-Signature is `v0=` and the hex HMAC-SHA256, keyed with the app's
 * signing secret, of `v0:<X-Slack-Request-Timestamp>:<raw body>`; the timestamp must be within five minutes.
 */
export function verifySlackSignature(
  secret: string | undefined,
  request: { timestamp: string | undefined; signature: string | undefined; rawBody: string },
  nowSeconds: number,
): SlackSignatureCheck {
  if (!secret) return { ok: false, reason: 'this deployment has no SLACK_SIGNING_SECRET' };
  const { timestamp, signature, rawBody } = request;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || !signature)
    return { ok: false, reason: 'X-Slack-Request-Timestamp and X-Slack-Signature are required' };
  if (Math.abs(nowSeconds - Number(timestamp)) > SLACK_WINDOW_SECONDS)
    return { ok: false, reason: 'the request was signed more than five minutes from now' };
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'the signature does not match' };
  return { ok: true };
}

/** A button's click as the interactivity callback's payload carries it. */
export interface SlackAction {
  user_id: string;
  action: string;
  value: string;
}

/** The first button action of a `block_actions` payload (the form field `payload`), or undefined. */
export function slackActionOf(payload: string): SlackAction | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const body = parsed as {
    type?: unknown;
    user?: { id?: unknown };
    actions?: Array<{ action_id?: unknown; value?: unknown }>;
  };
  const action = Array.isArray(body.actions) ? body.actions[0] : undefined;
  if (body.type !== 'block_actions' || typeof body.user?.id !== 'string' || !action) return undefined;
  if (typeof action.action_id !== 'string' || typeof action.value !== 'string') return undefined;
  return { user_id: body.user.id, action: action.action_id, value: action.value };
}

/** The incoming-webhook message: what is asked, and an Approve and a Reject button carrying single-use tokens. */
export function slackMessage(
  item: DecisionItem,
  recipient: { slack_user_id: string; name: string },
  tokens: Record<LinkAction, string>,
): Record<string, unknown> {
  const text = `<@${recipient.slack_user_id}>: ${item.summary} (risk ${item.risk_level})`;
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'actions',
        block_id: `handoff:${item.kind}:${item.id}`,
        elements: [
          button('approve', 'Approve', 'primary', tokens.approve),
          button('reject', 'Reject', 'danger', tokens.reject),
        ],
      },
    ],
  };
}

function button(action: LinkAction, label: string, style: string, value: string) {
  return { type: 'button', action_id: action, text: { type: 'plain_text', text: label }, style, value };
}
