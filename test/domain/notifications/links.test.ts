import { linkExpiry, linkRefusal, passkeyRequired } from '../../../domain/notifications/links';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const HOUR = 3_600_000;
const open = { open: true, answerable_by_person: true, risk_level: 'medium' as const };
const fresh = { used: false, expires_at_ms: NOW + HOUR };

describe('linkExpiry', () => {
  it.each([
    ['the TTL when the item has no deadline', undefined, NOW + 72 * HOUR],
    ['the TTL when the item’s deadline is later', NOW + 100 * HOUR, NOW + 72 * HOUR],
    ['the item’s deadline when it comes first', NOW + 2 * HOUR, NOW + 2 * HOUR],
  ])('is %s', (_case, itemDeadline, expected) => {
    expect(linkExpiry(NOW, 72 * 3600, itemDeadline)).toBe(expected);
  });
});

describe('linkRefusal', () => {
  it.each([
    ['nothing for a fresh link to an open item', fresh, open, {}, undefined],
    ['link_used for a used link, even to an open item', { ...fresh, used: true }, open, {}, 'link_used'],
    ['link_expired at the expiry instant', { ...fresh, expires_at_ms: NOW }, open, {}, 'link_expired'],
    ['item_decided when the item is closed', fresh, { ...open, open: false }, {}, 'item_decided'],
    ['item_decided when the item is gone', fresh, undefined, {}, 'item_decided'],
    ['not_the_person when it moved on', fresh, { ...open, answerable_by_person: false }, {}, 'not_the_person'],
    [
      'passkey_required above the policy’s level',
      fresh,
      { ...open, risk_level: 'high' as const },
      { passkey_required_above: 'medium' as const },
      'passkey_required',
    ],
    ['nothing at the policy’s level itself', fresh, open, { passkey_required_above: 'medium' as const }, undefined],
  ])('gives %s', (_case, link, item, policy, expected) => {
    expect(linkRefusal(link, item, NOW, policy)?.code).toBe(expected);
  });
});

describe('passkeyRequired', () => {
  it.each([
    [undefined, 'critical', false],
    ['low', 'medium', true],
    ['high', 'high', false],
    ['high', 'critical', true],
  ] as const)('above %s, a %s-risk decision: %s', (above, risk, expected) => {
    expect(passkeyRequired(above, risk)).toBe(expected);
  });
});
