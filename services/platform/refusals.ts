import { ZodError } from 'zod';
import { FAILURE_TYPES } from '../../contracts/failures';
import { LedgerAppendError } from '../../db/ledger';
import { CanonicalJsonError } from '../../domain/common/canonical-json';

/** A workflow that could not store what it was given, or its answer: the outcome its callers get instead of a hang. */
export type StorageRefusal = {
  ok: false;
  code: typeof FAILURE_TYPES.invalidData | typeof FAILURE_TYPES.storageFailed;
  detail: string;
};

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

/** PostgreSQL's class 22, data exception: the value itself is refused (e.g. 22021 a NUL, 22P05 or 22P02 a lone surrogate in jsonb). */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** knex puts the statement before Postgres's own message; the statement says nothing the caller needs. */
function postgresMessage(error: Error & { detail?: unknown }): string {
  const after = error.message.lastIndexOf(' - ');
  const message = after >= 0 ? error.message.slice(after + 3) : error.message;
  return typeof error.detail === 'string' && error.detail ? `${message} (${error.detail})` : message;
}

/**
 * Why no retry can store what an error was about: Postgres refused a value, or the record is not one
 * canonical JSON or validation accepts. Undefined for anything else (a connection lost, a lock timeout).
 */
export function unstorableDataReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && DATA_EXCEPTION.test(code))
    return `Postgres cannot store a value (SQLSTATE ${code}): ${postgresMessage(error)}`;
  if (error instanceof CanonicalJsonError || error instanceof LedgerAppendError)
    return `The record cannot be kept: ${error.message}`;
  if (error instanceof ZodError)
    return `The data is not valid: ${error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}`;
  return undefined;
}

/** A write in the request path that Postgres refused for its data: the invalid_data refusal, else the error as it was. */
export function refusedWrite(error: unknown): unknown {
  const reason = unstorableDataReason(error);
  return reason === undefined
    ? error
    : new StorageRefusedError({ ok: false, code: FAILURE_TYPES.invalidData, detail: reason });
}
