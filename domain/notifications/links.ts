import { riskRank, type RiskLevel } from '../routing/risk';

/** What a link may do: one of the two answers, never anything else. */
export const LINK_ACTIONS = ['approve', 'reject'] as const;
export type LinkAction = (typeof LINK_ACTIONS)[number];

/** What a link decides: an approval request, or a routing a human reviewer holds. */
export const LINK_ITEM_KINDS = ['approval', 'routing'] as const;
export type LinkItemKind = (typeof LINK_ITEM_KINDS)[number];

/** How a link was used: opened from an e-mail (a page's form) or a Slack button. */
export const LINK_CHANNELS = ['email_link', 'slack_action'] as const;
export type LinkChannel = (typeof LINK_CHANNELS)[number];

/** A link as stored: its hash's row, never the link itself. */
export interface StoredLink {
  link_id: string;
  organization_id: string;
  item_kind: LinkItemKind;
  item_id: string;
  action: LinkAction;
  channel: LinkChannel;
  passport_id: string;
  person_did: string;
  expires_at: string;
  used_at?: string | undefined;
}

/** An item's live state as the link checks it. */
export interface LinkedItem {
  /** Still waiting for a human's answer. */
  open: boolean;
  /** The person the link is bound to may still answer it (the approver; a reviewer on the routing's chain). */
  answerable_by_person: boolean;
  risk_level: RiskLevel;
}

export type LinkRefusalCode =
  'link_not_found' | 'link_used' | 'link_expired' | 'item_decided' | 'not_the_person' | 'passkey_required';

export type LinkRefusal = { code: LinkRefusalCode; detail: string };

/**
 * When a link stops working (ms since the epoch): its TTL from now, never past the item's own deadline (an approval's expiry),
 * since a link outliving what it decides would only ever show a refusal.
 */
export function linkExpiry(nowMs: number, ttlSeconds: number, itemExpiresAtMs?: number): number {
  return Math.min(nowMs + ttlSeconds * 1000, itemExpiresAtMs ?? Infinity);
}

/** Whether the organization's policy asks for a passkey signature on a decision of this risk. */
export function passkeyRequired(requiredAbove: RiskLevel | undefined, risk: RiskLevel): boolean {
  return requiredAbove !== undefined && riskRank(risk) > riskRank(requiredAbove);
}

/**
 * Why a link may not decide its item now, checked in this order: the link itself (used, expired), then the
 * item's live state (decided meanwhile, no longer the person's to answer), then the organization's policy.
 */
export function linkRefusal(
  link: { used: boolean; expires_at_ms: number },
  item: LinkedItem | undefined,
  nowMs: number,
  policy: { passkey_required_above?: RiskLevel | undefined },
): LinkRefusal | undefined {
  if (link.used) return { code: 'link_used', detail: 'This link has already been used.' };
  if (link.expires_at_ms <= nowMs) return { code: 'link_expired', detail: 'This link has expired.' };
  if (!item || !item.open)
    return { code: 'item_decided', detail: 'This request has already been decided, or it has ended.' };
  if (!item.answerable_by_person)
    return { code: 'not_the_person', detail: 'This request is no longer waiting for you.' };
  if (passkeyRequired(policy.passkey_required_above, item.risk_level))
    return {
      code: 'passkey_required',
      detail: `Your organization asks for a passkey signature on ${item.risk_level}-risk decisions: decide in the inbox.`,
    };
  return undefined;
}

export function isLinkAction(value: string): value is LinkAction {
  return (LINK_ACTIONS as readonly string[]).includes(value);
}
