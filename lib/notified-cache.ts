import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from './logger';
import { listenToChannel, type PgListener } from './pg-listener';

/**
 * Rows read on every request, held in memory only while a LISTEN connection reports every change to their tables:
 * a trigger on each table notifies the channel with the table's name at commit, and a notification drops that
 * table's entries. What a caller may observe:
 * - on the instance that wrote, its own change at once: for a while after its write statement (seen on the
 *   knex instance, before the commit), that table is read through;
 * - on other instances, the change within the notification's delivery (milliseconds);
 * - with no listener (none configured, the embedded database, a dropped connection), or one that has not
 *   heard the cache's own heartbeat lately (a pooler that does not keep sessions swallows notifications),
 *   every read goes to the database, as if there were no cache.
 */
export interface NotifiedCache {
  /** The cached value of key in table, or load's, cached when nothing about the table changed meanwhile. */
  get<T>(table: string, key: string, load: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** listening: the LISTEN connection is up; hearing: it delivered the cache's last heartbeat. */
  status(): { entries: number; listening: boolean; hearing: boolean };
}

export interface NotifiedCacheOptions {
  db: Knex;
  /** A Postgres server to LISTEN on; without one the cache holds nothing. */
  listenUrl: string | undefined;
  channel: string;
  tables: readonly string[];
  logger: Logger;
  maxEntriesPerTable?: number;
  /** How long a write statement of this instance keeps its table read through: longer than its transaction. */
  unconfirmedWriteMs?: number;
  /** How often the cache notifies itself through db; it holds entries only while the last heartbeats came back. */
  heartbeatMs?: number;
}

/** A cache that is not started until the first read, and reads through until its listener is up. */
export function createNotifiedCache(options: NotifiedCacheOptions): NotifiedCache {
  return new ListenedCache(options);
}

interface TableState {
  entries: Map<string, unknown>;
  /** Bumped by every change seen: a read that began before it must not cache what it read. */
  generation: number;
  /** Until when a write statement of this instance keeps the table read through. */
  writingUntil: number;
}

class ListenedCache implements NotifiedCache {
  private readonly tables = new Map<string, TableState>();
  /** A statement that writes one of the tables; the table's name is its first group. */
  private readonly writes: RegExp;
  private listener: PgListener | undefined;
  private started: Promise<void> | undefined;
  private closed = false;
  private readonly maxEntries: number;
  private readonly unconfirmedWriteMs: number;
  private readonly heartbeatMs: number;
  private heartbeat: NodeJS.Timeout | undefined;
  /** The payload of the last heartbeat sent, and until when the last one heard lets entries be held. */
  private expectedBeat: string | undefined;
  private heardUntil = 0;

  constructor(private readonly options: NotifiedCacheOptions) {
    this.maxEntries = options.maxEntriesPerTable ?? 10_000;
    this.unconfirmedWriteMs = options.unconfirmedWriteMs ?? 2_000;
    this.heartbeatMs = options.heartbeatMs ?? 2_000;
    for (const table of options.tables) this.tables.set(table, { entries: new Map(), generation: 0, writingUntil: 0 });
    this.writes = new RegExp(
      `\\b(?:insert\\s+into|update|delete\\s+from|truncate(?:\\s+table)?)\\s+(?:only\\s+)?"?(${options.tables.join('|')})"?(?!\\w)`,
      'gi',
    );
    if (options.listenUrl) options.db.on('query', this.onQuery);
  }

  async get<T>(table: string, key: string, load: () => Promise<T>): Promise<T> {
    const state = this.tables.get(table);
    if (!state || !this.options.listenUrl || this.closed) return load();
    this.started ??= this.start();
    if (!this.hearing() || Date.now() < state.writingUntil) return load();
    if (state.entries.has(key)) return state.entries.get(key) as T;
    // A change heard of, a write of this instance or the listener dropping meanwhile bumps the generation.
    const generation = state.generation;
    const value = await load();
    if (generation === state.generation) {
      if (state.entries.size >= this.maxEntries) state.entries.delete(state.entries.keys().next().value!);
      state.entries.set(key, value);
    }
    return value;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.options.db.off('query', this.onQuery);
    await this.started?.catch(() => undefined);
    clearInterval(this.heartbeat);
    await this.listener?.close();
    this.dropAll();
  }

  status() {
    let entries = 0;
    for (const state of this.tables.values()) entries += state.entries.size;
    return { entries, listening: this.listener?.listening === true, hearing: this.hearing() };
  }

  private hearing(): boolean {
    return this.listener?.listening === true && Date.now() < this.heardUntil;
  }

  private readonly beat = (): void => {
    const beat = `heartbeat ${randomBytes(8).toString('hex')}`;
    this.expectedBeat = beat;
    this.options.db
      .raw('select pg_notify(?, ?)', [this.options.channel, beat])
      .catch((error: unknown) =>
        this.options.logger.warn('cache heartbeat not sent', { channel: this.options.channel, error }),
      );
  };

  /** A heartbeat came back: entries may be held a while longer, none from before a lapse. */
  private heard(): void {
    if (Date.now() >= this.heardUntil) this.dropAll();
    this.heardUntil = Date.now() + 2 * this.heartbeatMs + 500;
  }

  /**
   * A write statement of this instance to a cached table, seen before its commit: the table is read through for
   * a while, so that neither a read before the commit nor one before the commit's notification is cached.
   */
  private readonly onQuery = (query: { sql?: unknown }): void => {
    if (typeof query.sql !== 'string') return;
    for (const [, table] of query.sql.matchAll(this.writes)) {
      const state = this.tables.get(table!.toLowerCase());
      if (!state) continue;
      state.writingUntil = Date.now() + this.unconfirmedWriteMs;
      this.drop(state);
    }
  };

  private drop(state: TableState): void {
    state.generation += 1;
    state.entries.clear();
  }

  private dropAll(): void {
    for (const state of this.tables.values()) this.drop(state);
  }

  private async start(): Promise<void> {
    try {
      this.listener = await listenToChannel({
        connectionString: this.options.listenUrl!,
        channel: this.options.channel,
        applicationName: `handoff-${this.options.channel}`,
        logger: this.options.logger,
        onNotification: (payload) => {
          if (payload?.startsWith('heartbeat ')) {
            if (payload === this.expectedBeat) this.heard();
            return;
          }
          const state = payload === undefined ? undefined : this.tables.get(payload);
          if (state) this.drop(state);
          else this.dropAll();
        },
        // Whatever changed while nobody listened is unknown: start empty, and hold entries once a heartbeat is heard.
        onUp: () => {
          this.dropAll();
          this.beat();
        },
        onDown: () => this.dropAll(),
      });
      if (this.closed) return;
      this.heartbeat = setInterval(this.beat, this.heartbeatMs);
      this.heartbeat.unref();
    } catch (error) {
      this.options.logger.warn('cache listener did not start; reading through', {
        channel: this.options.channel,
        error: (error as Error).message,
      });
    }
  }
}
