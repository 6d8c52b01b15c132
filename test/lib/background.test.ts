import { AsyncLocalStorage } from 'node:async_hooks';
import { createBackgroundQueue, createBatchQueue } from '../../lib/background';
import { eventually } from '../support/eventually';

describe('background queue', () => {
  it('runs at most `concurrency` tasks at once, and all of them', async () => {
    const queue = createBackgroundQueue({ concurrency: 3, retryDelaysMs: [] });
    let running = 0;
    let most = 0;
    let done = 0;
    for (let i = 0; i < 20; i += 1) {
      queue.push(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        done += 1;
      });
    }
    await eventually(
      async () => done,
      (count) => count === 20,
    );
    expect(most).toBe(3);
    expect(queue.size).toBe(0);
  });

  it('newest first, when so made: a queue behind runs the task pushed last first', async () => {
    const queue = createBackgroundQueue({ concurrency: 1, retryDelaysMs: [], order: 'newest-first' });
    const order: number[] = [];
    let release!: () => void;
    queue.push(() => new Promise<void>((resolve) => (release = resolve)));
    await eventually(
      async () => release,
      (set) => set !== undefined,
    );
    for (let i = 1; i <= 3; i += 1) queue.push(async () => void order.push(i));
    release();
    await queue.settled(1000);
    expect(order).toEqual([3, 2, 1]);
  });

  it('retries a failing task once per delay, then drops it', async () => {
    const queue = createBackgroundQueue({ concurrency: 2, retryDelaysMs: [1, 1] });
    let attempts = 0;
    queue.push(() => {
      attempts += 1;
      return Promise.reject(new Error('Temporal unreachable'));
    });
    await eventually(
      async () => queue.size,
      (size) => size === 0,
    );
    expect(attempts).toBe(3);
  });

  it('a task that succeeds on a retry is not run again', async () => {
    const queue = createBackgroundQueue({ concurrency: 1, retryDelaysMs: [1, 1, 1] });
    let attempts = 0;
    queue.push(() => {
      attempts += 1;
      return attempts < 2 ? Promise.reject(new Error('once')) : Promise.resolve();
    });
    await eventually(
      async () => queue.size,
      (size) => size === 0,
    );
    expect(attempts).toBe(2);
  });
});

describe('background queue context', () => {
  it('starts a task on the next turn of the event loop, after the code that pushed it', async () => {
    const queue = createBackgroundQueue({ concurrency: 2, retryDelaysMs: [] });
    const order: string[] = [];
    queue.push(async () => {
      order.push('task');
    });
    order.push('pusher');
    await queue.settled(1000);
    expect(order).toEqual(['pusher', 'task']);
  });

  it('runs a task outside the async-local context of whoever pushed it', async () => {
    const request = new AsyncLocalStorage<string>();
    const queue = createBackgroundQueue({ concurrency: 1, retryDelaysMs: [] });
    const seen: Array<string | undefined> = [];
    request.run('request-1', () => {
      queue.push(async () => {
        seen.push(request.getStore());
        await Promise.resolve();
      });
    });
    await eventually(
      async () => seen.length,
      (count) => count === 1,
    );
    expect(seen).toEqual([undefined]);
  });
});

describe('background queue settling', () => {
  it('settles once what was queued or running has run', async () => {
    const queue = createBackgroundQueue({ concurrency: 1, retryDelaysMs: [] });
    const done: number[] = [];
    for (const n of [1, 2, 3]) {
      queue.push(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        done.push(n);
      });
    }
    await queue.settled(10_000);
    expect(done).toEqual([1, 2, 3]);
  });

  it('stops waiting at its timeout when a task hangs', async () => {
    const queue = createBackgroundQueue({ concurrency: 1, retryDelaysMs: [] });
    let finished = false;
    queue.push(() => new Promise(() => undefined));
    await queue.settled(20).then(() => (finished = true));
    expect(finished).toBe(true);
    expect(queue.size).toBe(1);
  });
});

describe('batch queue', () => {
  it('writes the first item after its linger with what came meanwhile, and gathers what comes during a write into the next batches', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const queue = createBatchQueue<number>({
      maxBatch: 3,
      lingerMs: 20,
      write: async (batch) => {
        batches.push(batch);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    queue.push(1);
    queue.push(2);
    // Nothing is written on the path of the request that pushed it.
    expect(batches).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(batches).toEqual([[1, 2]]);
    for (const item of [3, 4, 5, 6]) queue.push(item);
    release();
    await queue.settled(1000);
    expect(batches).toEqual([[1, 2], [3, 4, 5], [6]]);
  });

  it('drops a batch whose write fails and goes on with the next', async () => {
    const written: number[][] = [];
    let failing: (() => void) | undefined;
    const queue = createBatchQueue<number>({
      maxBatch: 10,
      lingerMs: 0,
      write: async (batch) => {
        if (written.length === 0 && !failing) {
          await new Promise<void>((resolve) => (failing = resolve));
          throw new Error('the database is away');
        }
        written.push(batch);
      },
    });
    queue.push(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    queue.push(2);
    failing!();
    await queue.settled(1000);
    queue.push(3);
    await queue.settled(1000);
    expect(written).toEqual([[2], [3]]);
  });
});
