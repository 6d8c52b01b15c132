import type { ProblemTable } from './table';

/** Platform: approvals, executions, agents, workflow DAGs, tasks. */
export const PLATFORM_PROBLEMS = {
  approval_not_found: {
    status: 404,
    title: 'No such approval request',
    remediation: ['Check the approval id returned when the request was created'],
  },
  approval_not_pending: {
    status: 409,
    title: 'The approval request is no longer pending',
    remediation: ['Read its outcome with GET /v1/approvals/{approval_id}; a decided request cannot be answered again'],
  },
  already_voted: {
    status: 409,
    title: 'This person has already voted on the request',
    remediation: [
      'Each named approver votes once; read the votes so far with GET /v1/approvals/{approval_id}',
      'A vote cannot be changed: ask the requester to cancel and open a new request if it must be',
    ],
  },
  cover_not_found: {
    status: 404,
    title: 'No such cover',
    remediation: ['Check the cover id returned when the cover was set; covers of other organizations are not visible'],
  },
  cover_not_yours: {
    status: 403,
    title: 'This cover is someone else’s',
    remediation: [
      'Set, end or list your own covers, signed in with your own passkey or device key',
      'An administrator (people:enroll) sets covers for anyone in the organization',
    ],
  },
  execution_not_found: {
    status: 404,
    title: 'No such execution',
    remediation: ['Check the execution id from the call’s Location header'],
  },
  execution_not_cancellable: {
    status: 409,
    title: 'The execution is no longer queued or processing',
    remediation: ['Read its final state with GET /v1/executions/{execution_id}'],
  },
  execution_not_processing: {
    status: 409,
    title: 'The execution is not processing this attempt',
    remediation: [
      'Report progress only for the attempt the invocation named; later reports of an old attempt are refused',
    ],
  },
  invalid_progress_token: {
    status: 401,
    title: 'The progress token is missing or not valid for this execution',
    remediation: ['Send the progress token from the invocation as a bearer token, before it expires'],
  },
  agent_not_found: {
    status: 404,
    title: 'No such agent',
    remediation: ['Check the agent id, or list agents with GET /v1/agents'],
  },
  agent_exists: {
    status: 409,
    title: 'An agent with this id is already registered',
    remediation: ['Update the existing agent with PATCH, or register under another id'],
  },
  agent_uri_foreign_organization: {
    status: 403,
    title: 'The agent URI names another organization',
    remediation: [
      'Use agent://<org>/<name>@<version> whose <org> is your organization’s slug or organization id (GET /v1/organizations shows both)',
    ],
  },
  agent_inactive: {
    status: 422,
    title: 'The agent is not active',
    remediation: ['Activate the agent (status active) before calling it'],
  },
  agent_version_not_registered: {
    status: 422,
    title: 'That version of the agent is not registered',
    remediation: ['Register that version with POST /v1/agents (its agent_uri and endpoint), then deploy it'],
  },
  capability_not_matched: {
    status: 422,
    title: 'The agent does not offer the requested capability',
    remediation: ['Call an agent that lists the capability, or omit it'],
  },
  callback_secret_required: {
    status: 422,
    title: 'A callback_url needs a callback signing secret first',
    remediation: ['Create a callback signing secret with POST /v1/callback-secrets, then retry'],
  },
  workflow_not_found: {
    status: 404,
    title: 'No such workflow',
    remediation: ['Check the workflow id returned when it was created'],
  },
  task_not_found: {
    status: 404,
    title: 'No such task',
    remediation: ['Check the task id returned when it was created'],
  },
  // A workflow that could not store what it was given (a value Postgres refuses), or could not store at all.
  invalid_data: {
    status: 422,
    title: 'A value in the request cannot be stored',
    remediation: [
      'Remove the value named in detail (e.g. a NUL character or an unpaired surrogate) and send the request again',
    ],
  },
  storage_failed: {
    status: 503,
    title: 'The change could not be stored',
    remediation: ['Retry later with the same Idempotency-Key', 'If it persists, contact support quoting incident_id'],
  },
} as const satisfies ProblemTable;
