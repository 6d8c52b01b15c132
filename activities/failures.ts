import { ApplicationFailure } from '@temporalio/activity';
import { FAILURE_TYPES } from '../contracts/failures';
import { CanonicalJsonError } from '../domain/canonical-json';

/** The failure an error stands for when retrying cannot mend it: the same input would fail the same way. */
function nonRetryableFailureOf(error: unknown): ApplicationFailure | undefined {
  // A provenance record the ledger cannot canonicalize (a lone surrogate, a NaN) is data no retry changes.
  if (error instanceof CanonicalJsonError) return ApplicationFailure.create({ type: FAILURE_TYPES.invalidData, message: error.message, nonRetryable: true, cause: error });
  return undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- activities take any arguments; the wrapper keeps each one's own type
type Activities = Record<string, (...args: any[]) => Promise<unknown>>;

/** The same activities, each turning errors of invalid data into non-retryable failures, so none retries for ever on them. */
export function withNonRetryableFailures<T extends Activities>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await activity(...args);
        } catch (error) {
          throw nonRetryableFailureOf(error) ?? error;
        }
      },
    ]),
  ) as T;
}
