import type { Client } from '@temporalio/client';
import pg from 'pg';
import {
  DISPATCH_OUTBOX_WORKFLOW,
  outboxDispatcherId,
  wakeSignal,
  type DispatchOutboxWorkflow,
} from '../contracts/dispatch-outbox';
import type { Logger } from '../lib/logger';

/** The channel the outbox trigger notifies at commit (migration 20261123000300_webhooks). */
export const OUTBOX_CHANNEL = 'handoff_outbox';

const RECONNECT_FIRST_MS = 1000;
const RECONNECT_MAX_MS = 30_000;

export interface OutboxDispatch {
  /** Signal-with-start: wakes the dispatcher, starting it first when it is not running. */
  wake(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Keeps the task queue's outbox dispatcher running and wakes it soon after events are committed. Every
 * worker process runs this: at boot it signals-with-start the dispatcher (so the first worker starts
 * it, and one an operator terminated comes back), and on a Postgres server it LISTENs on a dedicated
 * connection and wakes the dispatcher on notifications: a burst folds into one signal in flight and one
 * after it, and signals are at least `minWakeIntervalMs` apart, because each wake costs the dispatcher a
 * pass (a workflow task and an activity) however few events it finds. The embedded Postgres delivers no
 * notifications; there the dispatcher's poll (WEBHOOK_DISPATCH_POLL_MS) finds the events, as it does
 * whenever a signal is lost.
 */
interface OutboxDispatchDeps {
  temporal: Client;
  taskQueue: string;
  databaseUrl?: string | undefined;
  /** WEBHOOK_DISPATCH_WAKE_INTERVAL_MS */
  minWakeIntervalMs: number;
  logger: Logger;
}

/** Signals the dispatcher awake: a burst folds into one signal in flight and one after it, spaced apart. */
class DispatcherWaker {
  stopped = false;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private lastSignalAt = 0;

  constructor(private readonly deps: OutboxDispatchDeps) {}

  // An arrow, so that it may be handed on unbound.
  readonly wake = (): Promise<void> => {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = this.signalUntilCaughtUp().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  };

  /** Once stopped: the signal in flight, if any, has ended. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  private async signalUntilCaughtUp(): Promise<void> {
    const { logger, minWakeIntervalMs } = this.deps;
    do {
      this.again = false;
      const wait = this.lastSignalAt + minWakeIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.stopped) break;
      this.lastSignalAt = Date.now();
      await this.signal().catch((error: unknown) =>
        logger.warn('could not wake the outbox dispatcher; its poll will find the events', {
          error: (error as Error).message,
        }),
      );
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- wake() sets again and stop() sets stopped while the loop awaits
    } while (this.again && !this.stopped);
  }

  private signal() {
    return this.deps.temporal.workflow.signalWithStart<DispatchOutboxWorkflow>(DISPATCH_OUTBOX_WORKFLOW, {
      workflowId: outboxDispatcherId(this.deps.taskQueue),
      taskQueue: this.deps.taskQueue,
      signal: wakeSignal,
    });
  }
}

/** LISTENs on the outbox channel on a connection of its own, reconnecting with backoff, and wakes on each notification. */
class OutboxListener {
  stopped = false;
  private listener: pg.Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = RECONNECT_FIRST_MS;

  constructor(
    private readonly databaseUrl: string | undefined,
    private readonly logger: Logger,
    private readonly wake: () => Promise<void>,
  ) {}

  readonly listen = async (): Promise<void> => {
    if (!this.databaseUrl || this.stopped) return;
    const connection = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: 'handoff-outbox-listener',
    });
    connection.on('notification', () => void this.wake());
    connection.on('error', (error) => {
      this.logger.warn('outbox listener connection failed; reconnecting', { error: error.message });
      this.reconnectSoon();
    });
    connection.on('end', this.reconnectSoon);
    try {
      await connection.connect();
      await connection.query(`listen ${OUTBOX_CHANNEL}`);
    } catch (error) {
      this.logger.warn('outbox listener could not connect; reconnecting', { error: (error as Error).message });
      this.listener = connection;
      this.reconnectSoon();
      return;
    }
    this.listener = connection;
    this.retryDelay = RECONNECT_FIRST_MS;
    // Events committed while nobody listened are picked up now rather than at the next poll.
    void this.wake();
  };

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const connection = this.listener;
    this.listener = undefined;
    await connection?.end().catch(() => undefined);
  }

  private readonly reconnectSoon = (): void => {
    if (this.stopped || this.retryTimer) return;
    const dead = this.listener;
    this.listener = undefined;
    void dead?.end().catch(() => undefined);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.listen();
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  };
}

export async function startOutboxDispatch(deps: OutboxDispatchDeps): Promise<OutboxDispatch> {
  const waker = new DispatcherWaker(deps);
  const listener = new OutboxListener(deps.databaseUrl, deps.logger, waker.wake);
  await waker.wake();
  await listener.listen();
  return {
    wake: waker.wake,
    async stop() {
      waker.stopped = true;
      await listener.stop();
      await waker.settled();
    },
  };
}
