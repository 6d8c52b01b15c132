import { setTimeout as sleep } from 'node:timers/promises';
import type { InboxItem } from './items';
import { listInbox, type InboxDeps, type InboxPerson } from './queue';

/** How a live inbox is read: how often, and for how long one stream lasts before the client reconnects. */
export interface LiveInboxSettings {
  pollMs: number;
  maxStreamMs: number;
}

export type InboxChange = { kind: 'queue'; items: InboxItem[] } | { kind: 'heartbeat' };

const HEARTBEAT_EVERY_POLLS = 15;

/**
 * The person's queue each time it changes (an item arrives, leaves, or moves on: its id or version differs),
 * first as it stands; a heartbeat now and then so that proxies keep the stream open. Reads Postgres, so it
 * sees what every API instance and worker wrote. It ends when the client leaves or after maxStreamMs, when
 * the client reconnects with its credential, so a stream never outlives a revoked session by long.
 */
export async function* inboxChanges(
  deps: InboxDeps,
  person: InboxPerson,
  settings: LiveInboxSettings,
  signal: AbortSignal,
): AsyncGenerator<InboxChange> {
  const endAt = Date.now() + settings.maxStreamMs;
  let seen: string | undefined;
  for (let poll = 0; !signal.aborted && Date.now() < endAt; poll += 1) {
    const items = await listInbox(deps, person);
    const fingerprint = items.map((item) => `${item.item_id}@${String(item.version)}`).join(',');
    if (fingerprint !== seen) {
      seen = fingerprint;
      yield { kind: 'queue', items };
    } else if (poll % HEARTBEAT_EVERY_POLLS === 0) yield { kind: 'heartbeat' };
    await sleep(settings.pollMs, undefined, { signal }).catch(() => undefined);
  }
}
