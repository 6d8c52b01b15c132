import { ApplicationFailure } from '@temporalio/activity';
import { ZodError } from 'zod';
import { FAILURE_TYPES } from '../contracts/failures';
import { LedgerAppendError } from '../db/ledger';
import { CanonicalJsonError } from '../domain/canonical-json';

/** PostgreSQL's class 22, data exception: the value itself is refused (e.g. 22021 a NUL, 22P05 or 22P02 a lone surrogate in jsonb). */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** knex puts the statement before Postgres's own message; the statement says nothing the caller needs. */
function postgresMessage(error: Error & { detail?: unknown }): string {
  const after = error.message.lastIndexOf(' - ');
  const message = after >= 0 ? error.message.slice(after + 3) : error.message;
  return typeof error.detail === 'string' && error.detail ? `${message} (${error.detail})` : message;
}

/**
 * The non-retryable invalid_data failure an error amounts to when no retry can mend it: Postgres refused
 * a value, or the record is not one canonical JSON or validation accepts. Undefined for anything else
 * (a connection lost, a lock timeout), which Temporal retries.
 */
export function invalidDataFailure(error: unknown): ApplicationFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  let reason: string | undefined;
  if (typeof code === 'string' && DATA_EXCEPTION.test(code)) reason = `Postgres cannot store a value (SQLSTATE ${code}): ${postgresMessage(error)}`;
  else if (error instanceof CanonicalJsonError || error instanceof LedgerAppendError) reason = `The record cannot be kept: ${error.message}`;
  else if (error instanceof ZodError) reason = `The data is not valid: ${error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}`;
  return reason === undefined ? undefined : ApplicationFailure.create({ type: FAILURE_TYPES.invalidData, message: reason, nonRetryable: true, cause: error });
}

/**
 * Wraps every activity of a factory so that an error no retry can mend fails the attempt for good, as
 * invalid_data, instead of being retried until the workflow's retry policy gives up.
 */
export function withInvalidDataFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: Parameters<typeof activity>) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw invalidDataFailure(error) ?? error;
      }
    };
  }
  return wrapped as T;
}
