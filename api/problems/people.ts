import type { ProblemTable } from './table';

/** Employees, organization links by e-mail, attestations of people and consent. */
export const PEOPLE_PROBLEMS = {
  employee_exists: {
    status: 409,
    title: 'The organization has an employee with this e-mail already',
    remediation: ['List the organization’s employees (GET /v1/employees) and use that record'],
  },
  employee_not_found: {
    status: 404,
    title: 'No such employee',
    remediation: ['Check the employee_id returned when the employee was created'],
  },
  mail_unavailable: {
    status: 503,
    title: 'The message could not be sent',
    remediation: [
      'Retry later: nothing was recorded, since the act needs its message',
      'Ask the operator to set SMTP_URL to a working SMTP server',
    ],
  },
  linking_code_unknown: {
    status: 404,
    title: 'No invitation of your organization has this linking code and e-mail',
    remediation: [
      'Copy the linking code from the onboarding e-mail, with the address it was sent to',
      'Sign in with a Passport of the organization that invited you',
    ],
  },
  linking_code_used: {
    status: 409,
    title: 'This invitation is linked already',
    remediation: ['Nothing to do if it is your Passport; otherwise ask an administrator for a new invitation'],
  },
  linking_code_expired: {
    status: 410,
    title: 'The linking code has expired',
    remediation: ['Ask an administrator of the organization for a new invitation'],
  },
  organization_link_not_found: {
    status: 404,
    title: 'No link of this Passport awaits a code',
    remediation: ['Start the link with POST /v1/passports/{passport_id}/organization-links and the linking code'],
  },
  verification_code_invalid: {
    status: 400,
    title: 'The code is not the one sent',
    remediation: [
      'Enter the 6-digit code of the latest e-mail; attempts_remaining says how many tries are left',
      'Ask for a new code with the linking code',
    ],
  },
  verification_code_used: {
    status: 409,
    title: 'The code was used already',
    remediation: ['Nothing to do: the Passport is linked (GET /v1/passports/{passport_id}/attestations shows it)'],
  },
  verification_code_expired: {
    status: 410,
    title: 'The code has expired',
    remediation: ['Ask for a new code: POST /v1/passports/{passport_id}/organization-links with the linking code'],
  },
  verification_attempts_exhausted: {
    status: 409,
    title: 'Too many wrong codes ended this verification',
    remediation: ['Ask for a new code: POST /v1/passports/{passport_id}/organization-links with the linking code'],
  },
  employee_already_linked: {
    status: 409,
    title: 'The invitation was linked to another Passport meanwhile',
    remediation: ['Ask an administrator of the organization which Passport holds it'],
  },
  organization_key_unavailable: {
    status: 503,
    title: 'The organization’s key cannot sign',
    remediation: [
      'Ask the operator to check SECRETS_ENCRYPTION_KEY',
      'Rotate the organization Passport’s keys if it has none active',
    ],
  },
  passport_not_linked: {
    status: 409,
    title: 'The person is not linked to the organization',
    remediation: ['Invite them as an employee (POST /v1/employees) and let them complete the link first'],
  },
  delegatee_not_found: {
    status: 404,
    title: 'No agent of the organization has this DID',
    remediation: ['Name an agent Passport of your organization by its DID'],
  },
} as const satisfies ProblemTable;
