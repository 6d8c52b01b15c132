import type { Logger } from '../../lib/logger';
import { listenToChannel, type PgListener } from '../../lib/pg-listener';

/** Where a routing's or an approval's change of status is told (migration 20261128000500_decision_notify). */
export const DECISIONS_CHANNEL = 'handoff_decisions';

/** The longest a caller may ask to wait for a decision, in seconds. */
export const MAX_DECISION_WAIT_SECONDS = 60;

export type DecisionSubject = 'routing' | 'approval';

export interface DecisionWaitSettings {
  /** How often a waiter re-reads while the notifications come (a safety net for a lost one), and while they do not. */
  recheckWhileListeningMs: number;
  recheckWithoutListenMs: number;
  /** How long a first waiter waits for the LISTEN connection before it relies on re-reads alone. */
  listenStartMs: number;
}

export const DEFAULT_DECISION_WAIT_SETTINGS: DecisionWaitSettings = {
  recheckWhileListeningMs: 2000,
  recheckWithoutListenMs: 1000,
  listenStartMs: 1000,
};

/**
 * The API instance's one LISTEN connection for decisions, opened on the first wait, and the waiters it wakes.
 * A waiter holds no database connection: it reads, then waits on a notification of its subject, a re-read
 * interval, its deadline or its client going away, whichever comes first, and reads again.
 */
export interface DecisionWaits {
  /**
   * Reads until decided(read) holds, the wait ends or the signal aborts, and returns the last read (undefined:
   * not found). A read is made at the end of the wait too, unless the signal aborted it.
   */
  waitFor<T>(options: {
    subject: DecisionSubject;
    id: string;
    waitMs: number;
    signal: AbortSignal;
    read: () => Promise<T | undefined>;
    decided: (value: T) => boolean;
  }): Promise<T | undefined>;
  /** Stops listening; waits under way go on with re-reads. */
  close(): Promise<void>;
  /** For tests and operators: whether LISTEN is up, and how many subjects have a waiter now. */
  readonly listening: boolean;
  readonly waiting: number;
}

export function createDecisionWaits(deps: {
  listenUrl?: string | undefined;
  logger: Logger;
  settings?: DecisionWaitSettings;
}): DecisionWaits {
  const settings = deps.settings ?? DEFAULT_DECISION_WAIT_SETTINGS;
  const wakers = createWakers();
  const listener = createDecisionListener({ listenUrl: deps.listenUrl, logger: deps.logger, wakers });

  return {
    async waitFor({ subject, id, waitMs, signal, read, decided }) {
      const key = `${subject}:${id}`;
      const endsAt = Date.now() + waitMs;
      await within(listener.start(), settings.listenStartMs).catch((error: unknown) => {
        deps.logger.warn('decision listener did not start; waiting by re-reads', { error: (error as Error).message });
      });
      for (;;) {
        const subscription = wakers.subscribe(key);
        try {
          const value = await read();
          const left = endsAt - Date.now();
          if (value === undefined || decided(value) || left <= 0 || signal.aborted) return value;
          const recheckMs = listener.listening ? settings.recheckWhileListeningMs : settings.recheckWithoutListenMs;
          await firstOf(subscription.woken, Math.min(left, recheckMs), signal);
          // The client went away: nobody reads another answer.
          if (aborted(signal)) return value;
        } finally {
          subscription.cancel();
        }
      }
    },
    close: () => listener.close(),
    get listening() {
      return listener.listening;
    },
    get waiting() {
      return wakers.count;
    },
  };
}

/** The LISTEN connection, opened by the first wait (none without a listenUrl), that wakes the waiters. */
function createDecisionListener(deps: {
  listenUrl: string | undefined;
  logger: Logger;
  wakers: ReturnType<typeof createWakers>;
}) {
  let listener: PgListener | undefined;
  let starting: Promise<void> | undefined;
  let closed = false;
  return {
    start(): Promise<void> {
      if (!deps.listenUrl || closed) return Promise.resolve();
      starting ??= listenToChannel({
        connectionString: deps.listenUrl,
        channel: DECISIONS_CHANNEL,
        applicationName: 'handoff-decisions',
        logger: deps.logger,
        onNotification: (payload) => {
          if (payload) deps.wakers.wake(payload);
        },
        // Whatever changed while nobody listened: every waiter reads again.
        onUp: () => deps.wakers.wakeAll(),
        onDown: () => deps.logger.warn('decision listener down; waiters re-read until it is back'),
      }).then((started) => {
        listener = started;
        if (closed) void started.close();
      });
      return starting;
    },
    async close(): Promise<void> {
      closed = true;
      await starting?.catch(() => undefined);
      await listener?.close();
    },
    get listening(): boolean {
      return listener?.listening === true;
    },
  };
}

/** The waiters of each subject, by key ("routing:<id>"), and what wakes them. */
function createWakers() {
  const wakers = new Map<string, Set<() => void>>();
  const wake = (key: string) => {
    for (const waker of wakers.get(key) ?? []) waker();
  };
  return {
    wake,
    wakeAll: () => {
      for (const key of wakers.keys()) wake(key);
    },
    /** A notification of key, caught from now on: subscribed before the read it follows, so none falls between the two. */
    subscribe: (key: string) => {
      let notified: () => void = () => undefined;
      const woken = new Promise<void>((resolve) => {
        notified = resolve;
      });
      const set = wakers.get(key) ?? new Set<() => void>();
      set.add(notified);
      wakers.set(key, set);
      return {
        woken,
        cancel: () => {
          set.delete(notified);
          if (set.size === 0 && wakers.get(key) === set) wakers.delete(key);
        },
      };
    },
    /** How many subjects have a waiter now. */
    get count() {
      return wakers.size;
    },
  };
}

/** Read through a call, since a check before an await narrows signal.aborted for the compiler. */
const aborted = (signal: AbortSignal) => signal.aborted;

/** Resolves at the first of: woken, ms passed, the signal aborted. */
function firstOf(woken: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: () => void = () => undefined;
  return new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
    void woken.then(resolve);
  }).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  });
}

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`LISTEN did not start within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
