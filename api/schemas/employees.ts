import { z } from './zod';
import { EMPLOYEE_ROLES, EMPLOYEE_STATUSES, Employee } from '../../contracts/aggregates/employee';
import { listQuerySchema } from './common';

export const CreateEmployeeSchema = z
  .object({
    email: z.email().max(320).openapi({ example: 'grace@acme.example' }),
    role: z.enum(EMPLOYEE_ROLES).default('member').openapi({
      description: 'administrator: once linked, the person holds the organization’s administration',
    }),
  })
  .strict()
  .openapi('CreateEmployeeRequest');

const iso = () => z.string().openapi({ format: 'date-time' });
const employee = Employee.shape;

/** The employee as the API shows it; the linking code (sent by e-mail only) and the enrollment stay internal. */
export const EmployeeSchema = z
  .object({
    employee_id: employee.employee_id,
    organization_id: employee.organization_id,
    email: employee.email,
    role: employee.role,
    status: employee.status,
    passport_id: employee.passport_id,
    invited_by: employee.invited_by,
    created_at: iso(),
    linking_code_expires_at: iso(),
    linked_at: iso().nullable(),
  })
  .openapi('Employee');

export function employeeView(row: Employee): z.infer<typeof EmployeeSchema> {
  return {
    employee_id: row.employee_id,
    organization_id: row.organization_id,
    email: row.email,
    role: row.role,
    status: row.status,
    passport_id: row.passport_id,
    invited_by: row.invited_by,
    created_at: row.created_at.toISOString(),
    linking_code_expires_at: row.linking_code_expires_at.toISOString(),
    linked_at: row.linked_at?.toISOString() ?? null,
  };
}

export const ListEmployeesQuerySchema = listQuerySchema.extend({
  status: z.enum(EMPLOYEE_STATUSES).optional(),
  role: z.enum(EMPLOYEE_ROLES).optional(),
});
export const EMPLOYEE_SORTABLE = { created_at: 'created_at', email: 'email' };

export const EmployeeIdParamsSchema = z.object({ employee_id: z.string().min(1).max(200) });
