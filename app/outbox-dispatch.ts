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
export async function startOutboxDispatch(deps: {
  temporal: Client;
  taskQueue: string;
  databaseUrl?: string | undefined;
  /** WEBHOOK_DISPATCH_WAKE_INTERVAL_MS */
  minWakeIntervalMs: number;
  logger: Logger;
}): Promise<OutboxDispatch> {
  const { logger, minWakeIntervalMs } = deps;
  let inFlight: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let lastSignalAt = 0;

  const signal = () =>
    deps.temporal.workflow.signalWithStart<DispatchOutboxWorkflow>(DISPATCH_OUTBOX_WORKFLOW, {
      workflowId: outboxDispatcherId(deps.taskQueue),
      taskQueue: deps.taskQueue,
      signal: wakeSignal,
    });

  const wake = (): Promise<void> => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        do {
          again = false;
          const wait = lastSignalAt + minWakeIntervalMs - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          if (stopped) break;
          lastSignalAt = Date.now();
          await signal().catch((error: unknown) =>
            logger.warn('could not wake the outbox dispatcher; its poll will find the events', {
              error: (error as Error).message,
            }),
          );
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- wake() sets again and stop() sets stopped while the loop awaits
        } while (again && !stopped);
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  let listener: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelay = RECONNECT_FIRST_MS;

  const reconnectSoon = () => {
    if (stopped || retryTimer) return;
    const dead = listener;
    listener = undefined;
    void dead?.end().catch(() => undefined);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void listen();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, RECONNECT_MAX_MS);
  };

  const listen = async (): Promise<void> => {
    if (!deps.databaseUrl || stopped) return;
    const connection = new pg.Client({
      connectionString: deps.databaseUrl,
      application_name: 'handoff-outbox-listener',
    });
    connection.on('notification', () => void wake());
    connection.on('error', (error) => {
      logger.warn('outbox listener connection failed; reconnecting', { error: error.message });
      reconnectSoon();
    });
    connection.on('end', reconnectSoon);
    try {
      await connection.connect();
      await connection.query(`listen ${OUTBOX_CHANNEL}`);
    } catch (error) {
      logger.warn('outbox listener could not connect; reconnecting', { error: (error as Error).message });
      listener = connection;
      reconnectSoon();
      return;
    }
    listener = connection;
    retryDelay = RECONNECT_FIRST_MS;
    // Events committed while nobody listened are picked up now rather than at the next poll.
    void wake();
  };

  await wake();
  await listen();
  return {
    wake,
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      const connection = listener;
      listener = undefined;
      await connection?.end().catch(() => undefined);
      await inFlight;
    },
  };
}
