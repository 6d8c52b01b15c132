import { AsyncResource } from 'node:async_hooks';

/**
 * Work done after a request has been answered, at most `concurrency` tasks at a time (so a burst of answers
 * does not become a burst of calls on the service behind them), each retried after `retryDelaysMs` when it
 * fails. A task that still fails is dropped: only work that something else finishes (an outbox sweep) goes here.
 */
export interface BackgroundQueue {
  push(task: () => Promise<void>): void;
  /** Tasks queued or running. */
  readonly size: number;
  /**
   * Resolves once nothing is queued or running (retries still waiting on their delay are not waited for), or
   * after `timeoutMs`: a stopping process waits for this before it closes what the tasks use.
   */
  settled(timeoutMs: number): Promise<void>;
}

/** Resolves when `done` does or after `timeoutMs`, whichever comes first. */
async function doneOrTimedOut(done: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}

export function createBackgroundQueue(options: {
  concurrency: number;
  retryDelaysMs: readonly number[];
  /**
   * Which waiting task runs next: the oldest (the default), or the newest, for work that something else takes over
   * past an age (an outbox sweep): a queue behind a burst then makes the fresh ones at once and leaves the oldest,
   * instead of making every one late.
   */
  order?: 'oldest-first' | 'newest-first';
}): BackgroundQueue {
  // Tasks run in the context the queue was made in, not in the request that pushed them: a request's
  // async-local state (its deadline's abort signal, bound to its Temporal calls) ends with its answer.
  const context = new AsyncResource('BackgroundQueue');
  const waiting: Array<{ task: () => Promise<void>; attempt: number }> = [];
  let running = 0;
  let retrying = 0;
  const onIdle: Array<() => void> = [];

  const next = () => {
    while (running < options.concurrency && waiting.length > 0) {
      const job = options.order === 'newest-first' ? waiting.pop()! : waiting.shift()!;
      running += 1;
      context
        .runInAsyncScope(job.task)
        .catch(() => {
          const delay = options.retryDelaysMs[job.attempt];
          if (delay === undefined) return;
          retrying += 1;
          // Unref'd: a retry never keeps a stopping process alive; the sweep finishes what it drops.
          setTimeout(() => {
            retrying -= 1;
            waiting.push({ task: job.task, attempt: job.attempt + 1 });
            next();
          }, delay).unref();
        })
        .finally(() => {
          running -= 1;
          next();
        });
    }
    if (running === 0 && waiting.length === 0) for (const resolve of onIdle.splice(0)) resolve();
  };

  let scheduled = false;
  return {
    push(task) {
      waiting.push({ task, attempt: 0 });
      // Started on the next turn of the event loop, so the request that pushed it is answered first.
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        next();
      });
    },
    get size() {
      return waiting.length + running + retrying;
    },
    async settled(timeoutMs) {
      if (running === 0 && waiting.length === 0) return;
      await doneOrTimedOut(new Promise<void>((resolve) => onIdle.push(resolve)), timeoutMs);
    },
  };
}

/**
 * Items written after a request has been answered, in batches: the first item waits `lingerMs` (so the request
 * that pushed it is answered before the write is made, and what other requests push meanwhile joins it), and
 * items added while a batch is being written go together in the next one (at most `maxBatch`). So a quiet
 * process makes one small write a moment after each answer, and a busy one one write of many. A batch whose
 * write fails is dropped: only writes that something else makes good (an outbox sweep) go here.
 */
export interface BatchQueue<T> {
  push(item: T): void;
  /** Resolves once nothing is waiting or being written, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
}

export function createBatchQueue<T>(options: {
  maxBatch: number;
  lingerMs: number;
  write: (batch: T[]) => Promise<void>;
}): BatchQueue<T> {
  const context = new AsyncResource('BatchQueue');
  const waiting: T[] = [];
  let writing: Promise<void> | undefined;
  const writeAll = async () => {
    await new Promise((resolve) => setTimeout(resolve, options.lingerMs));
    while (waiting.length > 0) await options.write(waiting.splice(0, options.maxBatch)).catch(() => undefined);
    writing = undefined;
  };
  return {
    push(item) {
      waiting.push(item);
      writing ??= context.runInAsyncScope(writeAll);
    },
    async settled(timeoutMs) {
      if (writing) await doneOrTimedOut(writing, timeoutMs);
    },
  };
}
