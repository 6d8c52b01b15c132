import type { Knex } from 'knex';
import { findNotificationPolicy, upsertNotificationPolicy, type NotificationPolicyRow } from '../../db/decision-links';
import type { RiskLevel } from '../../domain/routing/risk';
import { createSecretBox, type SecretKeys } from '../../lib/secret-box';
import { slackWebhookContext } from './notify';

/** An organization's notification policy as shown: the Slack webhook URL is a secret, so only whether there is one. */
export interface NotificationPolicyView {
  slack_webhook_configured: boolean;
  passkey_required_above: RiskLevel | null;
  updated_at: string | null;
}

function viewOf(row: NotificationPolicyRow | undefined): NotificationPolicyView {
  return {
    slack_webhook_configured: Boolean(row?.slack_webhook_url_sealed),
    passkey_required_above: row?.passkey_required_above ?? null,
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}

export async function readNotificationPolicy(db: Knex, organizationId: string): Promise<NotificationPolicyView> {
  return viewOf(await findNotificationPolicy(db, organizationId));
}

export type SavePolicyOutcome = { ok: true; policy: NotificationPolicyView } | { ok: false; detail: string };

/**
 * Replaces the organization's policy. The Slack webhook URL is sealed at rest (it is a bearer URL); undefined keeps
 * the one stored, null removes it.
 */
export async function saveNotificationPolicy(
  deps: { db: Knex; secretKeys: SecretKeys },
  organizationId: string,
  input: { slack_webhook_url?: string | null | undefined; passkey_required_above: RiskLevel | null },
): Promise<SavePolicyOutcome> {
  const box = createSecretBox(deps.secretKeys);
  let sealed: string | null | undefined;
  if (input.slack_webhook_url === null) sealed = null;
  else if (input.slack_webhook_url !== undefined) {
    if (!box.canSeal)
      return { ok: false, detail: 'SECRETS_ENCRYPTION_KEY is not configured, so a webhook URL cannot be kept' };
    sealed = box.seal(input.slack_webhook_url, slackWebhookContext(organizationId));
  } else sealed = (await findNotificationPolicy(deps.db, organizationId))?.slack_webhook_url_sealed ?? null;
  const row = await upsertNotificationPolicy(deps.db, {
    organization_id: organizationId,
    slack_webhook_url_sealed: sealed,
    passkey_required_above: input.passkey_required_above,
  });
  return { ok: true, policy: viewOf(row) };
}
