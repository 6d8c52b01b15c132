import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertLinks } from '../../db/decision-links';
import {
  LINK_ACTIONS,
  linkExpiry,
  type LinkAction,
  type LinkChannel,
  type LinkItemKind,
} from '../../domain/notifications/links';

/** A link's token: random, shown only in the message it is sent in; the database keeps its hash. */
const TOKEN_PREFIX = 'hdl_';
const TOKEN_PATTERN = /^hdl_[A-Za-z0-9_-]{43}$/;

export function isLinkToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function linkHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Who a link acts as, and what it decides. */
export interface LinkTarget {
  organization_id: string;
  item_kind: LinkItemKind;
  item_id: string;
  /** The item's own deadline, when it has one: no link outlives it. */
  item_expires_at?: string | undefined;
  passport_id: string;
  person_did: string;
}

/** The page a link opens; the token rides in the query, which no log, trace or problem body records. */
export function linkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/links?token=${token}`;
}

/**
 * One single-use token per action, bound to the item, the action, the person and the channel it is sent on;
 * only their hashes are stored. Answers the tokens by action.
 */
export async function issueLinks(
  db: Knex,
  target: LinkTarget,
  options: { channel: LinkChannel; ttlSeconds: number; nowMs: number },
): Promise<Record<LinkAction, string>> {
  const { item_expires_at, ...bound } = target;
  const expiresAtMs = linkExpiry(
    options.nowMs,
    options.ttlSeconds,
    item_expires_at === undefined ? undefined : Date.parse(item_expires_at),
  );
  const expires_at = new Date(expiresAtMs).toISOString();
  const tokens = Object.fromEntries(
    LINK_ACTIONS.map((action) => [action, `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`]),
  ) as Record<LinkAction, string>;
  await insertLinks(
    db,
    LINK_ACTIONS.map((action) => ({
      ...bound,
      link_id: `dl_${randomUUID()}`,
      link_hash: linkHash(tokens[action]),
      action,
      channel: options.channel,
      expires_at,
    })),
  );
  return tokens;
}
