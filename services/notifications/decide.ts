import {
  claimLink,
  findLinkByHash,
  findNotificationPolicy,
  findPersonContact,
  releaseLink,
  spendSiblingLinks,
} from '../../db/decision-links';
import { simpleResponse } from '../../domain/approvals/requests';
import {
  linkRefusal,
  type LinkAction,
  type LinkChannel,
  type LinkRefusal,
  type StoredLink,
} from '../../domain/notifications/links';
import { isRiskLevel } from '../../domain/routing/risk';
import type { Logger } from '../../lib/logger';
import { respondToApproval } from '../approvals/answers';
import type { PlatformServiceDeps } from '../approvals/approvals';
import type { HumanActCaller } from '../../domain/identity/human-acts';
import { resolveRoutingAs } from '../routing/resolution';
import type { RoutingServiceDeps } from '../routing/submit';
import { readDecisionItem, type DecisionItem } from './items';
import { isLinkToken, linkHash } from './links';

export type DecideDeps = PlatformServiceDeps & RoutingServiceDeps & { logger: Logger };

/** A link as its page shows it: what it decides, or why it no longer can (with the item, when there is one). */
export type LinkView =
  | { ok: true; link: StoredLink; item: DecisionItem }
  | (LinkRefusal & { ok: false; link?: StoredLink | undefined; item?: DecisionItem | undefined });

export type DecideOutcome =
  | { ok: true; link: StoredLink; item: DecisionItem }
  | (LinkRefusal & { ok: false; item?: DecisionItem | undefined })
  | { ok: false; code: 'decision_refused'; detail: string; item?: DecisionItem | undefined };

const NOT_FOUND: LinkRefusal = {
  code: 'link_not_found',
  detail: 'This link is not known. Check that it was copied whole.',
};

/**
 * What a link would decide, read without deciding anything: mail scanners and link previews open links, so
 * opening one (GET) only ever shows this. A link sent on another channel (a Slack button's token) is not found.
 */
export async function viewLink(deps: Pick<DecideDeps, 'db'>, token: string, channel: LinkChannel): Promise<LinkView> {
  const link = isLinkToken(token) ? await findLinkByHash(deps.db, linkHash(token)) : undefined;
  if (!link || link.channel !== channel) return { ok: false, ...NOT_FOUND };
  const item = await readDecisionItem(
    deps.db,
    link.organization_id,
    { kind: link.item_kind, id: link.item_id },
    { passport_id: link.passport_id, did: link.person_did },
  );
  const policy = await findNotificationPolicy(deps.db, link.organization_id);
  const above = policy?.passkey_required_above;
  const state = { used: link.used_at !== undefined, expires_at_ms: Date.parse(link.expires_at) };
  const refused = linkRefusal(state, item, Date.now(), {
    passkey_required_above: isRiskLevel(above) ? above : undefined,
  });
  if (refused) return { ok: false, ...refused, link, item };
  return { ok: true, link, item: item! };
}

/** How a link is used: where it was sent, the action the form or button names, and for a button the Slack user who clicked. */
export interface LinkUse {
  channel: LinkChannel;
  action: LinkAction;
  slack_user_id?: string | undefined;
}

/**
 * Decides the link's item as the person it is bound to, once: the item's live state and the policy are checked
 * again, the link is claimed by a conditional write only an unused, unexpired link takes, and the decision goes
 * through the same service a signed-in person's answer takes, its provenance naming the person and the link.
 * A Slack button's click is taken only from the person's own Slack user.
 */
export async function decideByLink(deps: DecideDeps, token: string, use: LinkUse): Promise<DecideOutcome> {
  const { channel } = use;
  const view = await viewLink(deps, token, channel);
  if (!view.ok) return view;
  const { link, item } = view;
  if (link.action !== use.action) return { ok: false, ...NOT_FOUND };
  if (channel === 'slack_action') {
    const contact = await findPersonContact(deps.db, link.organization_id, { passport_id: link.passport_id });
    if (!contact?.slack_user_id || contact.slack_user_id !== use.slack_user_id)
      return { ok: false, code: 'not_the_person', detail: 'This button is for another person.', item };
  }
  const hash = linkHash(token);
  const claimed = await claimLink(deps.db, hash, channel);
  if (!claimed) return await viewLink(deps, token, channel);
  const decided = await decideItem(deps, claimed);
  if (decided.ok) {
    await spendSiblingLinks(deps.db, claimed, channel);
    const after = await readDecisionItem(
      deps.db,
      link.organization_id,
      { kind: link.item_kind, id: link.item_id },
      { passport_id: link.passport_id, did: link.person_did },
    );
    return { ok: true, link: claimed, item: after ?? item };
  }
  if (decided.code === 'approval_not_pending' || decided.code === 'routing_not_awaiting_review')
    return { ok: false, code: 'item_decided', detail: 'This request has already been decided, or it has ended.', item };
  // Refused for a reason that may pass (storage refused it, say): the link stays usable.
  await releaseLink(deps.db, hash);
  return { ok: false, code: 'decision_refused', detail: decided.detail ?? 'The decision was refused.', item };
}

/** The person the link is bound to, as the caller of the decision: the link is the credential. */
function linkCaller(link: StoredLink): HumanActCaller & { id: string; organization_id: string } {
  return {
    id: `link:${link.link_id}`,
    kind: 'decision_link',
    scopes: [],
    organization_id: link.organization_id,
    actor: {
      passport_id: link.passport_id,
      did: link.person_did,
      credential: { type: link.channel, id: link.link_id },
    },
  };
}

async function decideItem(
  deps: DecideDeps,
  link: StoredLink,
): Promise<{ ok: true } | { ok: false; code: string; detail?: string | undefined }> {
  const caller = linkCaller(link);
  const comment = link.channel === 'slack_action' ? 'Decided with a Slack button' : 'Decided by an e-mail link';
  if (link.item_kind === 'approval') {
    const answered = await respondToApproval(deps, link.item_id, caller, simpleResponse(link.action, comment));
    return answered.ok
      ? { ok: true }
      : { ok: false, code: answered.code, detail: 'detail' in answered ? answered.detail : undefined };
  }
  const resolved = await resolveRoutingAs(deps, caller, {
    routing_id: link.item_id,
    outcome: link.action === 'approve' ? 'approved' : 'rejected',
    comment,
  });
  if (resolved.ok) return { ok: true };
  return { ok: false, code: resolved.code, detail: 'detail' in resolved ? resolved.detail : undefined };
}
