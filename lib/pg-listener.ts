import pg from 'pg';
import type { Logger } from './logger';

export interface PgListener {
  /** True while the LISTEN connection is up; a notification sent meanwhile reaches onNotification. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * LISTENs on one channel on a dedicated connection and reconnects with back-off when it drops. onUp runs
 * each time listening (re)starts, so the caller can catch up on what it missed while it was down; onDown
 * runs when it stops.
 */
export async function listenToChannel(options: {
  connectionString: string;
  channel: string;
  applicationName: string;
  logger: Logger;
  onNotification: (payload: string | undefined) => void;
  onUp: () => void;
  onDown: () => void;
}): Promise<PgListener> {
  const { logger } = options;
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelay = RECONNECT_FIRST_MS;

  const down = () => {
    if (listening) {
      listening = false;
      options.onDown();
    }
  };
  const reconnectSoon = () => {
    down();
    if (closed || retryTimer) return;
    const dead = client;
    client = undefined;
    void dead?.end().catch(() => undefined);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryDelay);
    retryTimer.unref();
    retryDelay = Math.min(retryDelay * 2, RECONNECT_MAX_MS);
  };
  const connect = async (): Promise<void> => {
    if (closed) return;
    const connection = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
      keepAlive: true,
    });
    client = connection;
    connection.on('notification', (message) => options.onNotification(message.payload));
    connection.on('error', (error) => {
      logger.warn('listener connection failed; reconnecting', { channel: options.channel, error: error.message });
      reconnectSoon();
    });
    connection.on('end', reconnectSoon);
    try {
      await connection.connect();
      await connection.query(`listen ${options.channel}`);
    } catch (error) {
      logger.warn('listener could not connect; reconnecting', {
        channel: options.channel,
        error: (error as Error).message,
      });
      reconnectSoon();
      return;
    }
    // close() may have run while connecting.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by close() during the awaits above
    if (closed) {
      await connection.end().catch(() => undefined);
      return;
    }
    retryDelay = RECONNECT_FIRST_MS;
    listening = true;
    options.onUp();
  };

  await connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      listening = false;
      const connection = client;
      client = undefined;
      await connection?.end().catch(() => undefined);
    },
  };
}
