import { ApplicationFailure } from '@temporalio/activity';
import { FAILURE_TYPES } from '../contracts/failures';
import { unstorableDataReason } from '../services/platform/refusals';

/**
 * The non-retryable invalid_data failure an error amounts to when no retry can mend it: Postgres refused
 * a value, or the record is not one canonical JSON or validation accepts. Undefined for anything else
 * (a connection lost, a lock timeout), which Temporal retries.
 */
export function invalidDataFailure(error: unknown): ApplicationFailure | undefined {
  const reason = unstorableDataReason(error);
  return reason === undefined
    ? undefined
    : ApplicationFailure.create({
        type: FAILURE_TYPES.invalidData,
        message: reason,
        nonRetryable: true,
        ...(error instanceof Error ? { cause: error } : {}),
      });
}

/**
 * Wraps every activity of a factory so that an error no retry can mend fails the attempt for good, as
 * invalid_data, instead of being retried until the workflow's retry policy gives up.
 */
export function withInvalidDataFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
): T {
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
