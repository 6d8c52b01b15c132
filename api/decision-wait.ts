import type { Response } from 'express';
import type { DecisionSubject, DecisionWaits } from '../services/decisions/waits';
import { extendDeadline } from './middleware/request-deadline';

/**
 * The read of a GET with ?wait=: at once without it; with it, read again on each change of the subject's status
 * until decided holds, the wait ends, or the client goes away. The request's deadline is moved by the wait, which
 * the caller bounded, so that waiting is not taken for a hung dependency.
 */
export async function readAfterWait<T>(
  res: Response,
  decisions: DecisionWaits,
  wait: {
    subject: DecisionSubject;
    id: string;
    seconds: number | undefined;
    read: () => Promise<T | undefined>;
    decided: (value: T) => boolean;
  },
): Promise<T | undefined> {
  if (!wait.seconds) return wait.read();
  const waitMs = wait.seconds * 1000;
  extendDeadline(res, waitMs);
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    return await decisions.waitFor({
      subject: wait.subject,
      id: wait.id,
      waitMs,
      signal: gone.signal,
      read: wait.read,
      decided: wait.decided,
    });
  } finally {
    res.off('close', onClose);
  }
}
