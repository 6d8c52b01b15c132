import type { Employee } from '../../contracts/aggregates/employee';
import type { OrganizationRow } from '../../db/organizations';
import type { Principal } from '../identity/scopes';
import { createOrganization, type OrganizationRequest } from '../organizations/organizations';
import { createEmployee, type CreateEmployeeOutcome } from './employees';
import type { PeopleDeps } from './settings';

/** Thrown inside the creating transaction to undo the organization when its administrator cannot be invited. */
class InvitationRefused extends Error {
  constructor(readonly outcome: Extract<CreateEmployeeOutcome, { ok: false }>) {
    super(outcome.detail);
  }
}

export type CreateWithAdministratorOutcome =
  | { ok: true; organization: OrganizationRow; administrator: Employee | null }
  | { ok: false; code: 'organization_exists' }
  | Extract<CreateEmployeeOutcome, { ok: false }>;

/**
 * A new organization, and when an e-mail names its first administrator, their invitation in the same
 * transaction: an administrator employee record and the onboarding e-mail with its enrollment link. Enrolling
 * from it signs them in holding the organization's administration, with no shell and no token handed over.
 */
export async function createOrganizationWithAdministrator(
  deps: PeopleDeps,
  principal: Principal,
  request: OrganizationRequest & { administrator_email?: string | undefined },
): Promise<CreateWithAdministratorOutcome> {
  const { administrator_email, ...organizationRequest } = request;
  let administrator: Employee | null = null;
  try {
    const created = await createOrganization(deps.db, organizationRequest, async (trx, organization) => {
      if (!administrator_email) return;
      const invited = await createEmployee(
        deps,
        { id: principal.id, organization_id: organization.organization_id },
        { email: administrator_email, role: 'administrator' },
        trx,
      );
      if (!invited.ok) throw new InvitationRefused(invited);
      administrator = invited.employee;
    });
    return created.ok ? { ...created, administrator } : created;
  } catch (error) {
    if (error instanceof InvitationRefused) return error.outcome;
    throw error;
  }
}
