import type { Context } from '@temporalio/activity';

/**
 * Runs work while telling Temporal, every `everyMs`, that this worker is alive: a lost worker is then
 * noticed within the heartbeat timeout instead of the activity's whole timeout.
 */
export async function whileHeartbeating<T>(context: Context, everyMs: number, work: () => Promise<T>): Promise<T> {
  const alive = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(alive);
  }
}
