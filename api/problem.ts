import { REQUEST_PROBLEMS } from './problems/requests';
import { LEDGER_PROBLEMS } from './problems/ledger';
import { PLATFORM_PROBLEMS } from './problems/platform';
import { IDENTITY_PROBLEMS } from './problems/identity';
import { WEBHOOK_PROBLEMS } from './problems/webhooks';
import { ORCHESTRATION_PROBLEMS } from './problems/orchestration';
import { PASSKEY_PROBLEMS } from './problems/passkeys';
import { REASONING_PROBLEMS } from './problems/reasoning';
import { CAPABILITY_PROBLEMS } from './problems/capabilities';
import { RECOVERY_PROBLEMS } from './problems/recovery';
import { MARKETPLACE_PROBLEMS } from './problems/marketplace';
import { PEOPLE_PROBLEMS } from './problems/people';
import { ORGANIZATION_CONNECTOR_PROBLEMS } from './problems/organization-connectors';
import type { ProblemTable } from './problems/table';

/**
 * The one error type of the API: thrown from any route or middleware, rendered by the problem middleware
 * as RFC 9457 application/problem+json. Each code has one status, title and remediation (what the client can
 * do about it, in order), listed here and served at /problems/{code}.
 */
export const PROBLEM_TYPES = {
  ...REQUEST_PROBLEMS,
  ...LEDGER_PROBLEMS,
  ...PLATFORM_PROBLEMS,
  ...IDENTITY_PROBLEMS,
  ...WEBHOOK_PROBLEMS,
  ...ORCHESTRATION_PROBLEMS,
  ...PASSKEY_PROBLEMS,
  ...REASONING_PROBLEMS,
  ...CAPABILITY_PROBLEMS,
  ...RECOVERY_PROBLEMS,
  ...MARKETPLACE_PROBLEMS,
  ...PEOPLE_PROBLEMS,
  ...ORGANIZATION_CONNECTOR_PROBLEMS,
} as const satisfies ProblemTable;

export type { ProblemTable };

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export interface FieldError {
  field: string;
  code: string;
  message: string;
  /** What the field takes, where the validator knows it. */
  expected?: string;
  /** What was sent: a type name or a short rendering, never a secret or a long value. */
  received?: string;
}

export function problemTypeUri(code: ProblemCode): string {
  return `/problems/${code}`;
}

/** The remediation of a problem type as the body carries it: numbered steps. */
export function remediationSteps(code: ProblemCode): Array<{ step: number; description: string }> {
  return PROBLEM_TYPES[code].remediation.map((description, index) => ({ step: index + 1, description }));
}

export class Problem extends Error {
  override name = 'Problem';
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly options: {
      errors?: FieldError[];
      /** Extension members added to the body (e.g. escalation, retry_after_seconds). */
      extensions?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail ?? PROBLEM_TYPES[code].title);
    this.status = PROBLEM_TYPES[code].status;
    this.title = PROBLEM_TYPES[code].title;
  }
}
