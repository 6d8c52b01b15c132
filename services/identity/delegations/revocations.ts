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
  applyLocal(revocation: Revocation): void;
  /** Stops listening and polling; a closed registry answers 'unknown'. */
  close(): Promise<void>;
  /** For operators and tests: how many revocations are held, and whether LISTEN is up. */
  status(): { tokens: number; delegations: number; listening: boolean; synced_at: Date | undefined };
}

type Revocation = { delegation_id: string; token_id: string | null };

/** The registry: the revoked ids, and how they are kept current (catch-ups, LISTEN, polling). */
class SyncedRevocations implements RevocationRegistry {
  private readonly revokedTokens = new Set<string>();
  private readonly revokedDelegations = new Set<string>();
  /** Local time of the start of the last catch-up that succeeded: the set holds everything committed before it. */
  private syncedAtMs: number | undefined;
  /** Where the next catch-up reads from: the oldest transaction running at the last one, so a late commit is never skipped. */
  private cursor: RevocationCursor | undefined;
  private listener: PgListener | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly listenUrl: string | undefined,
    private readonly logger: Logger,
    private readonly settings: RevocationSettings,
  ) {}

  async check(tokenId: string, chain: readonly string[]): Promise<RevocationCheck> {
    if (this.closed) return { state: 'unknown' };
    try {
      this.started ??= this.start();
      await within(this.started, this.settings.checkWaitMs);
      if (!this.fresh()) await within(this.catchUp(), this.settings.checkWaitMs);
    } catch (error) {
      // A start that failed is tried again by the next check; one still running is awaited by it.
      void this.started?.catch(() => {
        this.started = undefined;
      });
      this.logger.error('revocation state unknown; refusing delegation tokens', { error: (error as Error).message });
      return { state: 'unknown' };
    }
    if (this.revokedTokens.has(tokenId)) return { state: 'revoked', which: 'token' };
    if (chain.some((delegationId) => this.revokedDelegations.has(delegationId)))
      return { state: 'revoked', which: 'delegation' };
    return { state: 'valid' };
  }

  // An arrow, so that it may be handed on unbound.
  readonly applyLocal = (revocation: Revocation): void => {
    if (revocation.token_id === null) this.revokedDelegations.add(revocation.delegation_id);
    else this.revokedTokens.add(revocation.token_id);
  };

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.pollTimer);
    await this.started?.catch(() => undefined);
    clearTimeout(this.pollTimer);
    await this.listener?.close();
  }

  status() {
    return {
      tokens: this.revokedTokens.size,
      delegations: this.revokedDelegations.size,
      listening: this.listener?.listening === true,
      synced_at: this.syncedAtMs === undefined ? undefined : new Date(this.syncedAtMs),
    };
  }

  private fresh(): boolean {
    return (
      this.listener?.listening === true ||
      (this.syncedAtMs !== undefined && Date.now() - this.syncedAtMs <= this.settings.maxStalenessMs)
    );
  }

  /** One catch-up at a time; callers who arrive meanwhile share it. */
  private catchUp(): Promise<void> {
    this.inFlight ??= (async () => {
      const startedAtMs = Date.now();
      const read = await revocationsSince(this.db, this.cursor);
      for (const revocation of read.revocations) this.applyLocal(revocation);
      this.cursor = read.cursor;
      this.syncedAtMs = startedAtMs;
    })().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private schedulePoll(): void {
    if (this.closed) return;
    clearTimeout(this.pollTimer);
    const { pollWhileListeningMs, pollWithoutListenMs } = this.settings;
    const interval = this.listener?.listening ? pollWhileListeningMs : pollWithoutListenMs;
    this.pollTimer = setTimeout(() => {
      this.catchUp()
        .catch((error: unknown) =>
          this.logger.warn('revocation catch-up failed; delegation tokens are refused until it succeeds', {
            error: (error as Error).message,
          }),
        )
        .finally(() => this.schedulePoll());
    }, interval);
    this.pollTimer.unref();
  }

  private async start(): Promise<void> {
    await this.catchUp();
    this.logger.info('revocations loaded', {
      tokens: this.revokedTokens.size,
      delegations: this.revokedDelegations.size,
    });
    if (this.listenUrl) this.listener = await this.listen(this.listenUrl);
    this.schedulePoll();
  }

  private listen(connectionString: string): Promise<PgListener> {
    return listenToChannel({
      connectionString,
      channel: REVOCATIONS_CHANNEL,
      applicationName: 'handoff-revocations',
      logger: this.logger,
      onNotification: (payload) => {
        try {
          const message = JSON.parse(payload ?? '') as { d?: unknown; t?: unknown };
          if (typeof message.d === 'string')
            this.applyLocal({ delegation_id: message.d, token_id: typeof message.t === 'string' ? message.t : null });
        } catch {
          this.logger.warn('unreadable revocation notification; the catch-up will find it');
        }
      },
      // What was revoked while nobody listened is read now, not at the next poll.
      onUp: () => {
        void this.catchUp().catch(() => undefined);
        this.schedulePoll();
      },
      onDown: () => {
        this.logger.warn('revocation listener down; polling until it is back');
        this.schedulePoll();
      },
    });
  }
}

export function createRevocationRegistry(deps: {
  db: Knex;
  listenUrl?: string | undefined;
  logger: Logger;
  settings?: RevocationSettings;
}): RevocationRegistry {
  return new SyncedRevocations(deps.db, deps.listenUrl, deps.logger, deps.settings ?? DEFAULT_REVOCATION_SETTINGS);
}
