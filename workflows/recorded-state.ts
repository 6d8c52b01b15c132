import { allHandlersFinished, condition, upsertSearchAttributes } from '@temporalio/workflow';
import { failedWith, storageFailure, type WorkflowFailure } from '../contracts/failures';

/** What every recorded workflow state carries: the version its projection is written under, and when it changed. */
export interface VersionedState {
  version: number;
  status: string;
  updated_at: string;
}

type SearchAttributePairs = Parameters<typeof upsertSearchAttributes>[0];

/**
 * How a state says that it failed. A state without a failed status (a routing's) leaves both out: a write
 * that cannot be stored then fails the workflow with the write's own error.
 */
type FailureOptions<S extends VersionedState> =
  | {
      /** The changes that say the state failed, and why. */
      failedChanges: (failure: WorkflowFailure, at: string) => Partial<S>;
      /** Writes a failed state to the read model, where there is no step left to record it with. */
      projectFailed: (state: S) => Promise<unknown>;
    }
  | { failedChanges?: never; projectFailed?: never };

export type RecordedStateOptions<S extends VersionedState> = FailureOptions<S> & {
  /** Copies the state as it is written; a spread unless the state nests what changes. */
  copy?: (state: S) => S;
  /** The search attributes that follow the state, so the Temporal UI filters on what the read model shows. */
  searchAttributes?: (state: S) => SearchAttributePairs;
};

/**
 * A workflow's state and how it is stored: each change bumps the version, each record writes the state
 * through an activity, and a write that cannot be stored fails the workflow. The failure is stated once:
 * the state as last stored stays in the read model, marked failed with the reason, and the workflow ends
 * with it once in-flight handlers have replied.
 */
export class RecordedState<S extends VersionedState> {
  /** The state as last stored, which a failure leaves in the read model. */
  recorded: S | undefined;
  /** Why the workflow failed, once it has. */
  failure: WorkflowFailure | undefined;
  private readonly copy: (state: S) => S;

  constructor(
    readonly state: S,
    private readonly options: RecordedStateOptions<S>,
  ) {
    this.copy = options.copy ?? ((current) => ({ ...current }));
  }

  /** Whether the state as it is now is the state as stored. */
  get isRecorded(): boolean {
    return this.recorded?.version === this.state.version;
  }

  /** Changes the state under its next version. */
  change(changes: Partial<S>, at = new Date().toISOString()): void {
    Object.assign(this.state, changes, { version: this.state.version + 1, updated_at: at });
  }

  /**
   * Writes the state as it is now through `write`; a write that cannot be stored fails the workflow.
   * `took` copies what the store answered (a provenance id) into the state, which then counts as recorded;
   * without it, the snapshot written does.
   */
  async record<T>(write: (snapshot: S) => Promise<T>, took?: (stored: T) => void): Promise<T> {
    this.index();
    const snapshot = this.copy(this.state);
    const stored = await this.stored(write(snapshot));
    if (took) {
      took(stored);
      this.recorded = this.copy(this.state);
    } else this.recorded = snapshot;
    return stored;
  }

  /** A write to the store (a record, or a claim whose result is adopted): one that cannot be stored fails the workflow. */
  stored<T>(write: Promise<T>): Promise<T> {
    return write.catch(async (error: unknown) => {
      throw await this.fail(error);
    });
  }

  /**
   * A write could not be stored: the state says why and the read model shows it, and the workflow's failure
   * is returned to throw. An error that is no storage failure (a cancellation), or one of a state that has
   * no failed status, is returned as it is. Once failed, a second call changes nothing and returns the same
   * failure.
   */
  async fail(error: unknown): Promise<unknown> {
    if (this.failure) return failedWith(this.failure);
    const { failedChanges, projectFailed } = this.options;
    const failure = storageFailure(error);
    if (!failure || !failedChanges) return error;
    this.failure = failure;
    const at = new Date().toISOString();
    const changes = failedChanges(failure, at);
    this.change(changes, at);
    this.index();
    if (this.recorded)
      await projectFailed({ ...this.recorded, ...changes, version: this.state.version, updated_at: at }).catch(
        () => undefined,
      );
    await condition(allHandlersFinished);
    return failedWith(failure);
  }

  /** Throws the workflow's failure, once there is one: for handlers that waited on it. */
  throwIfFailed(): void {
    if (this.failure) throw failedWith(this.failure);
  }

  /** Takes a state the service recorded (a claim in Postgres), with the search attributes that follow it. */
  adopt(stored: S): void {
    this.resume(stored);
    this.index();
  }

  /** Takes the state recorded before the workflow started, which started with its search attributes. */
  resume(stored: S): void {
    Object.assign(this.state, stored);
    this.recorded = this.copy(this.state);
  }

  private index(): void {
    const pairs = this.options.searchAttributes?.(this.state);
    if (pairs) upsertSearchAttributes(pairs);
  }
}
