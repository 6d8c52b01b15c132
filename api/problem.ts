/**
 * The one error type of the API: thrown from any route or middleware, rendered by the problem middleware
 * as RFC 9457 application/problem+json. Each code has one status and title, listed here and served at
 * /problems/{code}.
 */
export const PROBLEM_TYPES = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_cursor: { status: 400, title: 'The pagination cursor is not valid' },
  invalid_request: { status: 400, title: 'The request cannot be processed' },
  unsupported_grant_type: { status: 400, title: 'The grant type is not supported' },
  invalid_scope: { status: 400, title: 'A requested scope is not allowed' },
  unauthorized: { status: 401, title: 'Authentication is required' },
  invalid_client: { status: 401, title: 'Client authentication failed' },
  insufficient_scope: { status: 403, title: 'The token lacks a required scope' },
  reviewer_not_assigned: { status: 403, title: 'The reviewer is not on this routing’s escalation chain' },
  not_found: { status: 404, title: 'No such resource' },
  routing_not_found: { status: 404, title: 'No such routing' },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this resource' },
  idempotency_key_reused: { status: 409, title: 'The Idempotency-Key was used with a different request' },
  idempotency_request_in_flight: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  routing_not_awaiting_review: { status: 409, title: 'The routing is not awaiting review' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  no_qualified_reviewer: { status: 422, title: 'No reviewer holds the required capabilities' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'A dependency of the service is unavailable' },
  // The ledger, provenance, audit and compliance.
  ledger_record_not_found: { status: 404, title: 'No such provenance record' },
  ledger_checkpoint_not_found: { status: 404, title: 'No such ledger checkpoint' },
  ledger_proof_unavailable: { status: 422, title: 'No such proof: the tree does not hold what it should prove' },
  attestation_not_found: { status: 404, title: 'No such attestation' },
  compliance_report_not_found: { status: 404, title: 'No such compliance report' },
  // Platform: approvals, executions, agents, workflow DAGs, tasks.
  approval_not_found: { status: 404, title: 'No such approval request' },
  approval_not_pending: { status: 409, title: 'The approval request is no longer pending' },
  execution_not_found: { status: 404, title: 'No such execution' },
  execution_not_cancellable: { status: 409, title: 'The execution is no longer queued or processing' },
  execution_not_processing: { status: 409, title: 'The execution is not processing this attempt' },
  invalid_progress_token: { status: 401, title: 'The progress token is missing or not valid for this execution' },
  agent_not_found: { status: 404, title: 'No such agent' },
  agent_exists: { status: 409, title: 'An agent with this id is already registered' },
  agent_inactive: { status: 422, title: 'The agent is not active' },
  agent_version_not_registered: { status: 422, title: 'That version of the agent is not registered' },
  capability_not_matched: { status: 422, title: 'The agent does not offer the requested capability' },
  callback_secret_required: { status: 422, title: 'A callback_url needs a callback signing secret first' },
  workflow_not_found: { status: 404, title: 'No such workflow' },
  task_not_found: { status: 404, title: 'No such task' },
  // A workflow that could not store what it was given (a value Postgres refuses), or could not store at all.
  invalid_data: { status: 422, title: 'A value in the request cannot be stored' },
  storage_failed: { status: 503, title: 'The change could not be stored' },
  // Webhooks and events.
  webhook_not_found: { status: 404, title: 'No such webhook subscription' },
  webhook_delivery_not_found: { status: 404, title: 'No such webhook delivery' },
  event_not_found: { status: 404, title: 'No such event' },
  webhook_disabled: { status: 409, title: 'The webhook subscription is disabled' },
  webhook_delivery_in_progress: { status: 409, title: 'The delivery is still being attempted' },
  destination_refused: { status: 422, title: 'The URL is not a destination the service may call' },
  secrets_unavailable: { status: 503, title: 'Secret encryption is not configured' },
  // Orchestration layer (issue 3). The four codes of the spec: agent_not_registered (403), safety_violation
  // (403), escalation_required (422), rule_conflict (409).
  agent_not_registered: { status: 403, title: 'The AI agent is not registered (or not active)' },
  agent_id_mismatch: { status: 403, title: 'X-Agent-ID names another agent than the API key' },
  safety_violation: { status: 403, title: 'The action violates a safety boundary' },
  confidence_below_threshold: { status: 422, title: 'AI confidence is below the 0.70 threshold for autonomous action' },
  escalation_required: { status: 422, title: 'Human escalation is required' },
  confidence_mismatch: { status: 422, title: 'X-Confidence-Score disagrees with the body’s confidence' },
  rule_conflict: { status: 409, title: 'The escalation rule conflicts with, or is shadowed by, an enabled rule' },
  routing_closed: { status: 409, title: 'The routing no longer takes escalations or confidence reports' },
  routing_not_completed: { status: 409, title: 'The routing has no outcome yet' },
  rule_not_found: { status: 404, title: 'No such escalation rule' },
  safety_domain_not_found: { status: 404, title: 'No safety configuration for this domain' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export function problemTypeUri(code: ProblemCode): string {
  return `/problems/${code}`;
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
