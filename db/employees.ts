import type { Knex } from 'knex';
import { Employee } from '../contracts/aggregates/employee';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

const employeeRow = rowOf(Employee);
const COLUMNS = employeeRow.columns;

/** undefined when the organization has an employee with this e-mail already. */
export async function insertEmployee(db: Knex, employee: Employee): Promise<Employee | undefined> {
  const [row] = await db('employees')
    .insert(employeeRow.of(employee))
    .onConflict(['organization_id', 'email'])
    .ignore()
    .returning<Employee[]>(COLUMNS);
  return row;
}

export async function findEmployee(db: Knex, organizationId: string, employeeId: string) {
  return db('employees')
    .where({ organization_id: organizationId, employee_id: employeeId })
    .first<Employee | undefined>(COLUMNS);
}

/** The employee whose linking code hashes to one of `hashes` (one per configured key), in the organization. */
export async function findEmployeeByLinkingCode(db: Knex, organizationId: string, hashes: readonly string[]) {
  return db('employees')
    .where({ organization_id: organizationId })
    .whereIn('linking_code_hash', hashes)
    .first<Employee | undefined>(COLUMNS);
}

/** The invited employee whose onboarding enrollment mints this Passport. */
export async function findEmployeeEnrolledAs(db: Knex, passportId: string) {
  return db('employees')
    .where({ enrollment_passport_id: passportId, status: 'invited' })
    .first<Employee | undefined>(COLUMNS);
}

/** The one write that makes an invited employee active with their Passport; false when it was linked already. */
export async function claimEmployee(
  trx: Knex.Transaction,
  employeeId: string,
  passportId: string,
  at: Date,
): Promise<boolean> {
  const updated = await trx('employees')
    .where({ employee_id: employeeId, status: 'invited' })
    .update({ status: 'active', passport_id: passportId, linked_at: at });
  return updated === 1;
}

/** Whether the Passport is linked to the organization as an active employee. */
export async function isLinkedEmployee(db: Knex, passportId: string, organizationId: string): Promise<boolean> {
  const row = await db('employees')
    .where({ passport_id: passportId, organization_id: organizationId, status: 'active' })
    .first<{ employee_id: string } | undefined>('employee_id');
  return row !== undefined;
}

/** Whether the Passport is an active administrator of the organization: it then holds its administration. */
export async function administersOrganization(db: Knex, passportId: string, organizationId: string): Promise<boolean> {
  const row = await db('employees')
    .where({ passport_id: passportId, organization_id: organizationId, status: 'active', role: 'administrator' })
    .first<{ employee_id: string } | undefined>('employee_id');
  return row !== undefined;
}

export async function listEmployees(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: string | undefined; role?: string | undefined },
): Promise<Page<Employee>> {
  const query = db('employees').select(COLUMNS).where({ organization_id: organizationId });
  if (filter.status) query.where({ status: filter.status });
  if (filter.role) query.where({ role: filter.role });
  return paginate<Employee>(query, page);
}
