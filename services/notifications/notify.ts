import type { Knex } from 'knex';
import {
  findNotificationPolicy,
  findPersonContact,
  findPersonPassport,
  findReviewerPassportId,
} from '../../db/decision-links';
import { passkeyRequired, type LinkItemKind } from '../../domain/notifications/links';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { isRiskLevel } from '../../domain/routing/risk';
import type { NotifyOutcome, NotifyTarget } from '../../contracts/notify';
import type { Mailer } from '../../lib/mail/transport';
import { postJson } from '../../lib/outbound/post';
import { createOutboundGuard } from '../../lib/outbound/url-guard';
import { createSecretBox } from '../../lib/secret-box';
import { readDecisionItem, type DecisionItem, type LinkPerson } from './items';
import { issueLinks, linkUrl } from './links';
import type { NotificationSettings } from './settings';
import { slackMessage } from './slack';

export interface NotifyDeps {
  db: Knex;
  mailer: Mailer;
  settings: NotificationSettings;
}

/** The Slack webhook URL is sealed per organization: the context binds the sealed value to its row. */
export const slackWebhookContext = (organizationId: string) => `notification_policies:${organizationId}:slack`;

interface Resolved {
  organization_id: string;
  person: LinkPerson;
  item: DecisionItem;
  contact: { email: string | null; slack_user_id: string | null; display_name: string };
  passkey_only: boolean;
}

/** The person, where they are reached, and the item as it stands; undefined with why nobody is told. */
async function resolve(db: Knex, target: NotifyTarget): Promise<Resolved | NotifyOutcome> {
  const organization_id = target.organization_id ?? DEFAULT_ORGANIZATION_ID;
  const identity = target.kind === 'approval' ? target.approver : target.reviewer_did;
  const reviewer = target.kind === 'routing' ? await findReviewerPassportId(db, organization_id, identity) : identity;
  const person = reviewer ? await findPersonPassport(db, organization_id, reviewer) : undefined;
  if (!person) return 'no_person';
  const contact = await findPersonContact(db, organization_id, { passport_id: person.passport_id, did: identity });
  if (!contact) return 'no_address';
  const item = await readDecisionItem(db, organization_id, { kind: target.kind, id: target.item_id }, person);
  if (!item?.open || !item.answerable_by_person) return 'not_waiting';
  const policy = await findNotificationPolicy(db, organization_id);
  const above = policy?.passkey_required_above ?? undefined;
  const passkey_only = passkeyRequired(isRiskLevel(above) ? above : undefined, item.risk_level);
  return { organization_id, person, item, contact, passkey_only };
}

function targetOf(resolved: Resolved, kind: LinkItemKind) {
  return {
    organization_id: resolved.organization_id,
    item_kind: kind,
    item_id: resolved.item.id,
    item_expires_at: resolved.item.expires_at,
    passport_id: resolved.person.passport_id,
    person_did: resolved.person.did,
  };
}

/**
 * E-mails the person the item waits for: what is asked, and an approve and a reject link, each single-use and
 * opening a confirmation page; where the organization asks for a passkey signature at this risk, the inbox instead.
 */
export async function sendDecisionMail(deps: NotifyDeps, target: NotifyTarget): Promise<NotifyOutcome> {
  if (!deps.mailer.configured) return 'not_configured';
  const resolved = await resolve(deps.db, target);
  if (typeof resolved === 'string') return resolved;
  const { item, contact } = resolved;
  if (!contact.email) return 'no_address';
  const base = deps.settings.publicBaseUrl;
  const lines = [`Hello ${contact.display_name},`, '', item.summary, `Risk: ${item.risk_level}.`];
  if (item.expires_at) lines.push(`Answer by ${item.expires_at}.`);
  lines.push('');
  if (resolved.passkey_only) {
    lines.push(
      'Your organization asks for a passkey signature on this decision. Decide in your inbox:',
      `${base}/inbox`,
    );
  } else {
    const tokens = await issueLinks(deps.db, targetOf(resolved, target.kind), {
      channel: 'email_link',
      ttlSeconds: deps.settings.linkTtlSeconds,
      nowMs: Date.now(),
    });
    lines.push(
      `Approve: ${linkUrl(base, tokens.approve)}`,
      `Reject: ${linkUrl(base, tokens.reject)}`,
      '',
      'Each link opens a page that asks you to confirm; nothing is decided until you do. A link works once.',
      `Or decide in your inbox: ${base}/inbox`,
    );
  }
  await deps.mailer.send({ to: contact.email, subject: 'A decision is waiting for you', text: lines.join('\n') });
  return 'sent';
}

/**
 * Posts the item to the organization's Slack incoming webhook with Approve and Reject buttons, whose single-use
 * tokens only the interactivity callback takes, and only from the person's own Slack user.
 */
export async function postDecisionToSlack(deps: NotifyDeps, target: NotifyTarget): Promise<NotifyOutcome> {
  const organizationId = target.organization_id ?? DEFAULT_ORGANIZATION_ID;
  const policy = await findNotificationPolicy(deps.db, organizationId);
  if (!policy?.slack_webhook_url_sealed) return 'not_configured';
  const resolved = await resolve(deps.db, target);
  if (typeof resolved === 'string') return resolved;
  const slackUser = resolved.contact.slack_user_id;
  if (!slackUser || resolved.passkey_only) return 'no_address';
  const webhookUrl = createSecretBox(deps.settings.secretKeys).open(
    policy.slack_webhook_url_sealed,
    slackWebhookContext(organizationId),
  );
  const tokens = await issueLinks(deps.db, targetOf(resolved, target.kind), {
    channel: 'slack_action',
    ttlSeconds: deps.settings.linkTtlSeconds,
    nowMs: Date.now(),
  });
  const message = slackMessage(
    resolved.item,
    { slack_user_id: slackUser, name: resolved.contact.display_name },
    tokens,
  );
  const posted = await postJson(webhookUrl, JSON.stringify(message), {
    timeoutMs: deps.settings.outbound.timeoutMs,
    guard: createOutboundGuard(deps.settings.outbound.policy),
  });
  if (posted.status !== undefined && posted.status >= 200 && posted.status < 300) return 'sent';
  throw new SlackPostFailed(posted.refused === true, posted.status ?? posted.error ?? 'no answer');
}

export class SlackPostFailed extends Error {
  override name = 'SlackPostFailed';
  constructor(
    readonly refused: boolean,
    answer: number | string,
  ) {
    super(`the Slack webhook did not take the message (${String(answer)})`);
  }
}
