import { findEmployee, listEmployees } from '../../db/employees';
import { createEmployee } from '../../services/people/employees';
import type { PeopleDeps } from '../../services/people/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  CreateEmployeeSchema,
  EMPLOYEE_SORTABLE,
  EmployeeIdParamsSchema,
  EmployeeSchema,
  employeeView,
  ListEmployeesQuerySchema,
} from '../schemas/employees';

/** An organization's employees: invited by e-mail, listed by its administrators. */
export function registerEmployeeRoutes(api: ApiBuilder, deps: PeopleDeps): void {
  const employees = routeGroup(api, { tags: ['Employees'], auth: 'platform:admin', rateLimit: 'default' });
  employees.route({
    method: 'post',
    path: '/v1/employees',
    operationId: 'createEmployee',
    summary: 'Create an employee record: a linking code and an onboarding e-mail',
    description:
      'Invites a person into the caller’s organization by e-mail (people:enroll, which platform:admin implies). The onboarding e-mail carries ' +
      'the linking code (never in the answer, nor in any log) and, unless a person of the organization is enrolled under this address, a ' +
      'passkey enrollment link: enrolling from it links the new Passport at once. A person already enrolled links with the code instead ' +
      '(POST /v1/passports/{passport_id}/organization-links). Both last EMPLOYEE_LINKING_CODE_TTL_SECONDS. The record is kept only once ' +
      'the SMTP server took the e-mail. An administrator, once linked, holds the organization’s administration.',
    auth: 'people:enroll',
    request: { body: CreateEmployeeSchema },
    responses: {
      201: { description: 'The employee, invited', schema: EmployeeSchema },
      409: { description: 'employee_exists: the organization has an employee with this e-mail' },
      503: { description: 'mail_unavailable or secrets_unavailable: nothing was recorded' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await createEmployee(deps, principal, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return {
        status: 201,
        body: employeeView(outcome.employee),
        headers: { Location: `/v1/employees/${outcome.employee.employee_id}` },
      };
    },
  });

  employees.list({
    path: '/v1/employees',
    operationId: 'listEmployees',
    summary: 'List the organization’s employees',
    description: 'Needs the capability org:employees:read (platform:admin implies it). Oldest first by default.',
    auth: 'platform:admin',
    query: ListEmployeesQuerySchema,
    page: { description: 'A page of employees', item: EmployeeSchema, name: 'EmployeePage' },
    sort: { allowed: EMPLOYEE_SORTABLE, fallback: 'created_at', uniqueKey: 'employee_id' },
    list: ({ query, principal, page }) => listEmployees(deps.db, principal.organization_id, page, query),
    view: employeeView,
  });

  employees.get({
    path: '/v1/employees/{employee_id}',
    operationId: 'getEmployee',
    summary: 'Read an employee',
    description: 'Needs org:employees:read. Another organization’s employee answers 404, as an unknown one does.',
    params: EmployeeIdParamsSchema,
    found: { description: 'The employee', schema: EmployeeSchema },
    missing: { code: 'employee_not_found' },
    find: ({ params, principal }) => findEmployee(deps.db, principal.organization_id, params.employee_id),
    view: employeeView,
  });
}
