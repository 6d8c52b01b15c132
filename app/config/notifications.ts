import { z } from 'zod';

/** Telling reviewers by e-mail and Slack, and deciding by the single-use links those messages carry (docs/notifications.md). */
export const notificationSettings = {
  /** How long an e-mailed link or a Slack button works (seconds; 72 h by default), never past the item's own deadline. */
  DECISION_LINK_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(72 * 3600),
  /** The Slack app's signing secret: verifies its interactivity callbacks (POST /v1/slack/actions). Unset: every callback is refused. */
  SLACK_SIGNING_SECRET: z.string().min(8).optional(),
};
