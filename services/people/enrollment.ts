import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { findEmployeeEnrolledAs } from '../../db/employees';
import { completeEnrollment, type EnrollmentOutcome } from '../identity/passkeys/registration';
import { linkEnrolledEmployee } from './links';
import type { PeopleDeps } from './settings';

/**
 * A passkey enrollment, and when it came from an employee's onboarding e-mail, the link it completes: the
 * link reached the employee at their address, so the new Passport is theirs (active employee, identity tier
 * 1, the organization's attestation). An administrator's enrollment thus signs in a person holding the
 * organization's administration. The enrollment stands even if the link cannot be made (the code path remains).
 */
export async function enrollPerson(
  deps: PeopleDeps,
  response: RegistrationResponseJSON,
): Promise<EnrollmentOutcome & { linked?: boolean }> {
  const outcome = await completeEnrollment(deps.webauthn, response);
  if (!outcome.ok) return outcome;
  const employee = await findEmployeeEnrolledAs(deps.db, outcome.passport.passport_id);
  if (!employee) return outcome;
  const linked = await linkEnrolledEmployee(deps, employee, outcome.passport);
  return { ...outcome, linked };
}
