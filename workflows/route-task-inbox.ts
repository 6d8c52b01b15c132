import { ApplicationFailure, condition } from '@temporalio/workflow';

/** A request an update handler queued for the main loop, answered once the loop has handled it. */
interface Queued {
  kind: 'resolve' | 'escalate' | 'confidence' | 'assign';
  handle(): Promise<void>;
  refuse(error: ApplicationFailure): void;
}

/**
 * The requests the routing's update handlers queue for the main loop, so that steps never interleave. Each
 * is answered with its step's result, or with the refusal the step raised (a state the validator could not
 * foresee, e.g. assigned meanwhile), or refused when the routing closes first.
 */
export class Inbox {
  private readonly requests: Queued[] = [];

  /** Whether a request waits for the main loop. */
  get waiting(): boolean {
    return this.requests.length > 0;
  }

  /** Whether a resolution waits: the validators refuse what it would make moot. */
  get resolving(): boolean {
    return this.requests.some((request) => request.kind === 'resolve');
  }

  /** Queues the update's work and answers with what it came to, once the main loop has handled it. */
  async queue<R>(kind: Queued['kind'], work: () => Promise<R>): Promise<R> {
    let done: { result: R } | { error: ApplicationFailure } | undefined;
    this.requests.push({
      kind,
      handle: async () => {
        try {
          done = { result: await work() };
        } catch (error) {
          if (!(error instanceof ApplicationFailure)) throw error;
          done = { error };
        }
      },
      refuse: (error) => {
        done = { error };
      },
    });
    await condition(() => done !== undefined);
    if ('error' in done!) throw done.error;
    return done!.result;
  }

  /** Handles the request that came first. */
  handleNext(): Promise<void> {
    return this.requests.shift()!.handle();
  }

  /** Refuses every request still queued: the routing closed before the loop came to them. */
  refuseAll(error: ApplicationFailure): void {
    for (const request of this.requests.splice(0)) request.refuse(error);
  }
}
