import { z } from 'zod';

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Guardian recovery of a person's Passport (docs/platform.md#guardian-recovery). */
export const recoverySettings = {
  /** How long an invited guardian has to accept, as their own signed-in Passport: 7 days. */
  RECOVERY_GUARDIAN_ACCEPT_WINDOW_SECONDS: seconds(7 * 24 * 3600),
  /** How long after a guardian's acceptance or removal the change takes effect: 24 hours. */
  RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: seconds(24 * 3600),
  /** How long guardians have to reach the threshold before a request expires: 7 days. */
  RECOVERY_APPROVAL_WINDOW_SECONDS: seconds(7 * 24 * 3600),
  /** The time lock once the threshold is met, during which the owner may cancel: 48 hours. */
  RECOVERY_TIME_LOCK_SECONDS: seconds(48 * 3600),
  /** The confirmation code's lifetime: 15 minutes. */
  RECOVERY_CODE_TTL_SECONDS: seconds(15 * 60),
  /** How far a guardian's approval timestamp may be from the service's clock: 5 minutes. */
  RECOVERY_APPROVAL_MAX_SKEW_SECONDS: seconds(300),
};
