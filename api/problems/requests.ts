import type { ProblemTable } from './table';

/** The request itself, authentication, human acts, and what any route may answer. */
export const REQUEST_PROBLEMS = {
  validation_failed: {
    status: 400,
    title: 'Validation Failed',
    remediation: [
      'Correct each field listed in errors[]: expected says what it takes, received what was sent',
      'Send the corrected request; the same Idempotency-Key may be reused',
    ],
  },
  malformed_json: {
    status: 400,
    title: 'The request body is not valid JSON',
    remediation: ['Serialize the body with a JSON encoder and send it as application/json'],
  },
  invalid_cursor: {
    status: 400,
    title: 'The pagination cursor is not valid',
    remediation: [
      'Pass next_cursor exactly as the previous page returned it, with the same filters and sort',
      'Start again from the first page without a cursor',
    ],
  },
  invalid_request: {
    status: 400,
    title: 'The request cannot be processed',
    remediation: ['Read detail for what is wrong and correct the request'],
  },
  unsupported_grant_type: {
    status: 400,
    title: 'The grant type is not supported',
    remediation: ['Use grant_type=client_credentials'],
  },
  invalid_scope: {
    status: 400,
    title: 'A requested scope is not allowed',
    remediation: ['Request only scopes granted to the client, or omit scope to receive all of them'],
  },
  unauthorized: {
    status: 401,
    title: 'Authentication is required',
    remediation: [
      'Send Authorization: Bearer <token> with a valid, unexpired token',
      'Obtain a new token from POST /oauth/token if it has expired',
    ],
  },
  invalid_client: {
    status: 401,
    title: 'Client authentication failed',
    remediation: [
      'Check client_id and client_secret (HTTP Basic or in the body)',
      'Ask an administrator for a new service account if the secret is lost',
    ],
  },
  insufficient_scope: {
    status: 403,
    title: 'The token lacks a required scope',
    remediation: ['Obtain a token that carries the scope named in required_scope'],
  },
  reviewer_not_assigned: {
    status: 403,
    title: 'The reviewer is not on this routing’s escalation chain',
    remediation: ['Have a reviewer assigned to the routing act, or escalate it to one who is'],
  },
  // Human acts: only a signed-in person (or their delegate) does them, as themself.
  person_required: {
    status: 403,
    title: 'A person must sign in to do this',
    remediation: [
      'Sign in with a passkey or a device key and call with the session token',
      'Or, for an agent, use a delegation token from the person that holds the capability of the act',
    ],
  },
  actor_mismatch: {
    status: 403,
    title: 'The request names someone other than the signed-in person',
    remediation: [
      'Omit the DID field (responded_by, cancelled_by, reviewer_did, requested_by, submitted_by): the signed-in person is used',
      'Or have the person it names sign in and send it',
    ],
  },
  delegation_not_covering: {
    status: 403,
    title: 'The delegation does not cover this act',
    remediation: ['Exchange the person’s session for a delegation token that holds the capability named in detail'],
  },
  not_the_approver: {
    status: 403,
    title: 'Only the approver may answer this request',
    remediation: [
      'Have the approver the request is addressed to sign in and answer it',
      'Or use a delegation token from the approver that covers answering',
    ],
  },
  requester_may_not_answer: {
    status: 403,
    title: 'The requester may not answer their own request',
    remediation: [
      'Have another person (or their delegate) answer it',
      'Separation of duties: neither the requester nor anyone acting for them answers a request of theirs',
    ],
  },
  not_found: {
    status: 404,
    title: 'No such resource',
    remediation: ['Check the path against the API reference at /docs'],
  },
  routing_not_found: {
    status: 404,
    title: 'No such routing',
    remediation: ['Check the routing_id returned when the routing was created'],
  },
  method_not_allowed: {
    status: 405,
    title: 'The method is not allowed on this resource',
    remediation: ['Use one of the methods listed in the Allow header'],
  },
  idempotency_key_reused: {
    status: 409,
    title: 'The Idempotency-Key was used with a different request',
    remediation: [
      'Use a new Idempotency-Key for a new request',
      'Resend the original request unchanged to receive its stored response',
    ],
  },
  idempotency_request_in_flight: {
    status: 409,
    title: 'A request with this Idempotency-Key is still being processed',
    remediation: ['Wait the seconds given in Retry-After, then retry with the same key and body'],
  },
  routing_not_awaiting_review: {
    status: 409,
    title: 'The routing is not awaiting review',
    remediation: ['Read the routing’s current status with GET /v1/orch/routing/{routing_id}'],
  },
  payload_too_large: {
    status: 413,
    title: 'The request body is too large',
    remediation: ['Send a smaller body: split a batch, or move large content out of free-form fields'],
  },
  unsupported_media_type: {
    status: 415,
    title: 'The request body must be application/json',
    remediation: ['Send the body as JSON with Content-Type: application/json (UTF-8)'],
  },
  no_qualified_reviewer: {
    status: 422,
    title: 'No reviewer holds the required capabilities',
    remediation: [
      'Relax required_capabilities or min_weight',
      'Register a reviewer with the capability (PUT /v1/orch/reviewers/{did})',
    ],
  },
  rate_limit_exceeded: {
    status: 429,
    title: 'Rate limit exceeded',
    remediation: [
      'Wait the seconds given in Retry-After (X-RateLimit-Reset says when the window ends)',
      'Spread requests over the window; X-RateLimit-Remaining shows what is left',
    ],
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    remediation: [
      'Retry later; a request with an Idempotency-Key is safe to retry',
      'If it persists, contact support quoting incident_id and request_id',
    ],
  },
  service_unavailable: {
    status: 503,
    title: 'A dependency of the service is unavailable',
    remediation: ['Retry later with backoff', 'If it persists, contact support quoting incident_id'],
  },
  service_account_not_found: {
    status: 404,
    title: 'No such service account',
    remediation: ['List the service accounts with GET /v1/orch/service-accounts and use a client_id from there'],
  },
  personal_access_token_not_found: {
    status: 404,
    title: 'No such personal access token',
    remediation: ['List the tokens with GET /v1/auth/tokens and use a token_id from there'],
  },
} as const satisfies ProblemTable;
