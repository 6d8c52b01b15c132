import { FAILURE_TYPES } from '../../contracts/failures';

/** A workflow that could not store what it was given, or its answer: the outcome its callers get instead of a hang. */
export type StorageRefusal = { ok: false; code: typeof FAILURE_TYPES.invalidData | typeof FAILURE_TYPES.storageFailed; detail: string };

/** The refusal of a workflow that failed to store its state, from an Update's or the workflow's failure. */
export function storageRefusal(failure: { type: string; message: string } | undefined): StorageRefusal | undefined {
  if (failure?.type !== FAILURE_TYPES.invalidData && failure?.type !== FAILURE_TYPES.storageFailed) return undefined;
  return { ok: false, code: failure.type, detail: failure.message };
}

/**
 * Thrown where a use-case has no outcome value for a refusal of storage (a routing's decision): the problem
 * middleware answers it as the problem of the same code.
 */
export class StorageRefusedError extends Error {
  override name = 'StorageRefusedError';
  constructor(readonly refusal: StorageRefusal) {
    super(refusal.detail);
  }
}

/** The refusal as an outcome of startWithUpdate for a caller that throws it instead. */
export function throwStorageRefusal(failure: { type: string; message: string } | undefined): undefined {
  const refusal = storageRefusal(failure);
  if (refusal) throw new StorageRefusedError(refusal);
  return undefined;
}
