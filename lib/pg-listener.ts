import pg from 'pg';
import type { Logger } from './logger';

export interface PgListener {
  /** True while the LISTEN connection is up; a notification sent meanwhile reaches onNotification. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

interface ListenOptions {
  connectionString: string;
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotification: (payload: string | undefined) => void;
  onUp: () => void;
  onDown: () => void;
}

/**
 * LISTENs on one channel on a dedicated connection and reconnects with back-off when it drops. onUp runs
 * each time listening (re)starts, so the caller can catch up on what it missed while it was down; onDown
 * runs when it stops.
 */
export async function listenToChannel(options: ListenOptions): Promise<PgListener> {
  const listener = new ChannelListener(options);
  await listener.connect();
  return listener;
}

class ChannelListener implements PgListener {
  private client: pg.Client | undefined;
  private up = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = RECONNECT_FIRST_MS;

  constructor(private readonly options: ListenOptions) {}

  get listening(): boolean {
    return this.up;
  }

  async connect(): Promise<void> {
    if (this.closed) return;
    const { logger, channel } = this.options;
    const connection = this.openClient();
    try {
      await connection.connect();
      await connection.query(`listen ${channel}`);
    } catch (error) {
      logger.warn('listener could not connect; reconnecting', { channel, error: (error as Error).message });
      this.reconnectSoon();
      return;
    }
    // close() may have run while connecting.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by close() during the awaits above
    if (this.closed) {
      await connection.end().catch(() => undefined);
      return;
    }
    this.retryDelay = RECONNECT_FIRST_MS;
    this.up = true;
    this.options.onUp();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.up = false;
    const connection = this.client;
    this.client = undefined;
    await connection?.end().catch(() => undefined);
  }

  /** A new connection, not yet connected, that passes its notifications on and reconnects when it fails. */
  private openClient(): pg.Client {
    const connection = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName,
      keepAlive: true,
    });
    this.client = connection;
    connection.on('notification', (message) => this.options.onNotification(message.payload));
    connection.on('error', (error) => {
      this.options.logger.warn('listener connection failed; reconnecting', {
        channel: this.options.channel,
        error: error.message,
      });
      this.reconnectSoon();
    });
    connection.on('end', () => this.reconnectSoon());
    return connection;
  }

  private reconnectSoon(): void {
    if (this.up) {
      this.up = false;
      this.options.onDown();
    }
    if (this.closed || this.retryTimer) return;
    const dead = this.client;
    this.client = undefined;
    void dead?.end().catch(() => undefined);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  }
}
