import type { Knex } from 'knex';
import { REVOCATIONS_CHANNEL, revocationsSince, type RevocationCursor } from '../../../db/delegation';
import type { Logger } from '../../../lib/logger';
import { listenToChannel, type PgListener } from '../../../lib/pg-listener';

export interface RevocationSettings {
  /** The bound: an instance never answers from a revocation set older than this. */
  maxStalenessMs: number;
  /** How often the set is caught up while LISTEN is up (a safety net), and while it is down or absent. */
  pollWhileListeningMs: number;
  pollWithoutListenMs: number;
  /** How long a check waits for a catch-up it needs before it answers 'unknown': a slow database does not hang requests. */
  checkWaitMs: number;
}

export const DEFAULT_REVOCATION_SETTINGS: RevocationSettings = {
  maxStalenessMs: 1000,
  pollWhileListeningMs: 5000,
  pollWithoutListenMs: 250,
  checkWaitMs: 2000,
};

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export type RevocationCheck =
  { state: 'valid' } | { state: 'revoked'; which: 'token' | 'delegation' } | { state: 'unknown' };

/**
 * Every unexpired revocation, held in memory by each API instance so that a verification costs two set
 * lookups per delegation in the chain. Loaded on first use; kept current by LISTEN/NOTIFY (a revocation
 * reaches every instance at its commit) with a periodic catch-up as a safety net. With no LISTEN (the
 * embedded PGlite, or a dropped connection) the catch-up runs often, and a check never answers from a set
 * older than maxStalenessMs: it catches up first, and answers 'unknown' (the caller refuses) when it cannot.
 */
export interface RevocationRegistry {
  check(tokenId: string, chain: readonly string[]): Promise<RevocationCheck>;
  /** Applies a revocation this instance just committed, before its notification comes back. */
  applyLocal(revocation: { delegation_id: string; token_id: string | null }): void;
  /** Stops listening and polling; a closed registry answers 'unknown'. */
  close(): Promise<void>;
  /** For operators and tests: how many revocations are held, and whether LISTEN is up. */
  status(): { tokens: number; delegations: number; listening: boolean; synced_at: Date | undefined };
}

export function createRevocationRegistry(deps: {
  db: Knex;
  listenUrl?: string | undefined;
  logger: Logger;
  settings?: RevocationSettings;
}): RevocationRegistry {
  const settings = deps.settings ?? DEFAULT_REVOCATION_SETTINGS;
  const { db, logger } = deps;
  const revokedTokens = new Set<string>();
  const revokedDelegations = new Set<string>();
  /** Local time of the start of the last catch-up that succeeded: the set holds everything committed before it. */
  let syncedAtMs: number | undefined;
  /** Where the next catch-up reads from: the oldest transaction running at the last one, so a late commit is never skipped. */
  let cursor: RevocationCursor | undefined;
  let listener: PgListener | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let started: Promise<void> | undefined;
  let inFlight: Promise<void> | undefined;
  let closed = false;

  const apply = (revocation: { delegation_id: string; token_id: string | null }) => {
    if (revocation.token_id === null) revokedDelegations.add(revocation.delegation_id);
    else revokedTokens.add(revocation.token_id);
  };

  /** One catch-up at a time; callers who arrive meanwhile share it. */
  const catchUp = (): Promise<void> => {
    inFlight ??= (async () => {
      const startedAtMs = Date.now();
      const read = await revocationsSince(db, cursor);
      for (const revocation of read.revocations) apply(revocation);
      cursor = read.cursor;
      syncedAtMs = startedAtMs;
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const schedulePoll = () => {
    if (closed) return;
    clearTimeout(pollTimer);
    const interval = listener?.listening ? settings.pollWhileListeningMs : settings.pollWithoutListenMs;
    pollTimer = setTimeout(() => {
      catchUp()
        .catch((error: unknown) =>
          logger.warn('revocation catch-up failed; delegation tokens are refused until it succeeds', {
            error: (error as Error).message,
          }),
        )
        .finally(schedulePoll);
    }, interval);
    pollTimer.unref();
  };

  const start = async () => {
    await catchUp();
    logger.info('revocations loaded', { tokens: revokedTokens.size, delegations: revokedDelegations.size });
    if (deps.listenUrl) {
      listener = await listenToChannel({
        connectionString: deps.listenUrl,
        channel: REVOCATIONS_CHANNEL,
        applicationName: 'handoff-revocations',
        logger,
        onNotification: (payload) => {
          try {
            const message = JSON.parse(payload ?? '') as { d?: unknown; t?: unknown };
            if (typeof message.d === 'string')
              apply({ delegation_id: message.d, token_id: typeof message.t === 'string' ? message.t : null });
          } catch {
            logger.warn('unreadable revocation notification; the catch-up will find it');
          }
        },
        // What was revoked while nobody listened is read now, not at the next poll.
        onUp: () => {
          void catchUp().catch(() => undefined);
          schedulePoll();
        },
        onDown: () => {
          logger.warn('revocation listener down; polling until it is back');
          schedulePoll();
        },
      });
    }
    schedulePoll();
  };

  const fresh = () =>
    listener?.listening === true || (syncedAtMs !== undefined && Date.now() - syncedAtMs <= settings.maxStalenessMs);

  return {
    async check(tokenId, chain) {
      if (closed) return { state: 'unknown' };
      try {
        started ??= start();
        await within(started, settings.checkWaitMs);
        if (!fresh()) await within(catchUp(), settings.checkWaitMs);
      } catch (error) {
        // A start that failed is tried again by the next check; one still running is awaited by it.
        void started?.catch(() => {
          started = undefined;
        });
        logger.error('revocation state unknown; refusing delegation tokens', { error: (error as Error).message });
        return { state: 'unknown' };
      }
      if (revokedTokens.has(tokenId)) return { state: 'revoked', which: 'token' };
      if (chain.some((delegationId) => revokedDelegations.has(delegationId)))
        return { state: 'revoked', which: 'delegation' };
      return { state: 'valid' };
    },
    applyLocal: apply,
    async close() {
      closed = true;
      clearTimeout(pollTimer);
      await started?.catch(() => undefined);
      clearTimeout(pollTimer);
      await listener?.close();
    },
    status: () => ({
      tokens: revokedTokens.size,
      delegations: revokedDelegations.size,
      listening: listener?.listening === true,
      synced_at: syncedAtMs === undefined ? undefined : new Date(syncedAtMs),
    }),
  };
}
