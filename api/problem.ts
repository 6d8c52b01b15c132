/**
 * The one error type of the API: thrown from any route or middleware, rendered by the problem middleware
 * as RFC 9457 application/problem+json. Each code has one status, title and remediation (what the client can
 * do about it, in order), listed here and served at /problems/{code}.
 */
export const PROBLEM_TYPES = {
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
  // The ledger, provenance, audit and compliance.
  ledger_record_not_found: {
    status: 404,
    title: 'No such provenance record',
    remediation: ['Check the transaction_id from the record’s ledger anchor'],
  },
  ledger_checkpoint_not_found: {
    status: 404,
    title: 'No such ledger checkpoint',
    remediation: ['Ask for a tree size no larger than the latest checkpoint’s (GET /v1/ledger/checkpoint)'],
  },
  ledger_proof_unavailable: {
    status: 422,
    title: 'No such proof: the tree does not hold what it should prove',
    remediation: ['Ask for sizes within the latest checkpoint, the first no larger than the second'],
  },
  attestation_not_found: {
    status: 404,
    title: 'No such attestation',
    remediation: ['Check the attestation id returned when it was created'],
  },
  attestation_organization_mismatch: {
    status: 403,
    title: 'An attestation is made for the caller’s own organization only',
    remediation: ['Send your organization’s id as organizationId (GET /v1/organizations shows it)'],
  },
  attestation_agent_not_found: {
    status: 422,
    title: 'agentId names no agent of the caller’s organization',
    remediation: [
      'Name an agent Passport (id or DID), a platform agent (id or URI) or an orchestration agent (id or DID) of your organization',
    ],
  },
  compliance_report_not_found: {
    status: 404,
    title: 'No such compliance report',
    remediation: ['Check the report_id, or request the report again with POST /v1/orch/compliance/report'],
  },
  // Platform: approvals, executions, agents, workflow DAGs, tasks.
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
  // Passports, their keys and the device ceremony.
  passport_not_found: {
    status: 404,
    title: 'No such Passport',
    remediation: ['Check the passportId returned when the Passport was created'],
  },
  passport_key_not_found: {
    status: 404,
    title: 'The Passport has no such key',
    remediation: [
      'List the Passport’s keys with GET /v1/passports/{passport_id}; a kid is the key’s RFC 7638 thumbprint',
    ],
  },
  passport_key_already_revoked: {
    status: 409,
    title: 'The key is revoked already',
    remediation: ['Nothing to do: a revoked key stays revoked; rotate to make a new one'],
  },
  passport_keys_on_device: {
    status: 409,
    title: 'This Passport’s keys live on its person’s devices',
    remediation: [
      'Register a new device key with the device ceremony (POST /v1/passports/device-challenges, then POST /v1/passports/devices)',
      'Revoke a lost device’s key with POST /v1/passports/{passport_id}/keys/{kid}/revoke',
    ],
  },
  organization_passport_exists: {
    status: 409,
    title: 'The organization has its Passport already',
    remediation: ['Use the organization Passport named in passport_id; rotate its keys rather than creating another'],
  },
  device_key_exists: {
    status: 409,
    title: 'The device key is registered already',
    remediation: [
      'Make a new key pair on the device for a new Passport, or sign in with this one (POST /v1/passports/{passport_id}/sessions)',
    ],
  },
  device_proof_invalid: {
    status: 401,
    title: 'The device proof does not verify',
    remediation: [
      'Sign a JWT (typ device-proof+jwt, alg EdDSA) with the device key over {challenge, deviceId}; for sign-in put the key’s kid in the header',
    ],
  },
  challenge_unknown: {
    status: 401,
    title: 'The proof answers no challenge this service issued for it',
    remediation: [
      'Ask for a challenge (registration: POST /v1/passports/device-challenges; sign-in: POST /v1/passports/{passport_id}/sign-in-challenges) and sign that one',
    ],
  },
  challenge_used: {
    status: 401,
    title: 'The challenge was answered already',
    remediation: ['Ask for a new challenge: each is single-use'],
  },
  challenge_expired: {
    status: 401,
    title: 'The challenge has expired',
    remediation: ['Ask for a new challenge and answer it within its expiresAt'],
  },
  device_key_revoked: {
    status: 401,
    title: 'The device key was revoked',
    remediation: [
      'Register the device again with a new key (POST /v1/passports/devices with a new registration challenge)',
    ],
  },
  // Delegation tokens and capabilities.
  passport_required: {
    status: 403,
    title: 'The operation needs a Passport’s credential',
    remediation: [
      'Call with a delegation token (POST /v1/delegation-tokens/exchange) or a session token of the Passport that delegates',
    ],
  },
  delegation_widening: {
    status: 403,
    title: 'A delegation can only narrow what its parent holds',
    remediation: [
      'Ask only for capabilities the parent holds, an expiry no later than its, its environment, and a risk_level no higher than its (widening[] lists each excess)',
    ],
  },
  verification_tier_too_low: {
    status: 403,
    title: 'The sign-in is below the required verification tier',
    remediation: [
      'Sign in with a stronger credential (a passkey reaches tier 2, a device key tier 1), then exchange again',
    ],
  },
  identity_tier_too_low: {
    status: 403,
    title: 'The Passport is below the required identity tier',
    remediation: [
      'Raise the Passport’s identity tier (verify its organization e-mail link for tier 1; organization attestation for tier 2), or ask for a lower tier',
    ],
  },
  agent_delegation_refused: {
    status: 403,
    title: 'A token held by an agent cannot delegate further',
    remediation: ['Delegate from the person’s own session or delegation token'],
  },
  delegation_outside_chain: {
    status: 403,
    title: 'The token belongs to a delegation outside the caller’s chain',
    remediation: [
      'Rotate only a token of your own delegation or of one made from it',
      'Or rotate with the person’s session, or with the delegation token the target was delegated from',
    ],
  },
  revoked_by_mismatch: {
    status: 403,
    title: 'revoked_by must be the caller’s own DID',
    remediation: ['Omit revoked_by, or send the DID of the Passport the token belongs to'],
  },
  delegation_not_found: {
    status: 404,
    title: 'No such delegation',
    remediation: ['Check the delegation_id returned by the exchange or by POST /v1/delegation-tokens'],
  },
  delegation_token_not_found: {
    status: 404,
    title: 'No such delegation token',
    remediation: ['List tokens with GET /v1/delegation-tokens'],
  },
  delegation_token_not_active: {
    status: 409,
    title: 'The delegation token is no longer active',
    remediation: [
      'Read its status with GET /v1/delegation-tokens/{token_id}; a rotated or revoked token cannot be rotated or revoked again',
    ],
  },
  // Organizations.
  organization_not_found: {
    status: 404,
    title: 'No such organization',
    remediation: ['List the organizations you can see with GET /v1/organizations'],
  },
  organization_exists: {
    status: 409,
    title: 'An organization already has this org_did or slug',
    remediation: ['Choose another org_did or slug, or use the existing organization'],
  },
  // Webhooks and events.
  webhook_not_found: {
    status: 404,
    title: 'No such webhook subscription',
    remediation: ['List subscriptions with GET /v1/orch/webhooks'],
  },
  webhook_delivery_not_found: {
    status: 404,
    title: 'No such webhook delivery',
    remediation: ['List the subscription’s deliveries with GET /v1/orch/webhooks/{subscription_id}/deliveries'],
  },
  event_not_found: { status: 404, title: 'No such event', remediation: ['List events with GET /v1/events'] },
  webhook_disabled: {
    status: 409,
    title: 'The webhook subscription is disabled',
    remediation: ['Enable the subscription (PATCH with status enabled), then retry'],
  },
  webhook_delivery_in_progress: {
    status: 409,
    title: 'The delivery is still being attempted',
    remediation: ['Wait for the delivery to finish, then replay it if it failed'],
  },
  destination_refused: {
    status: 422,
    title: 'The URL is not a destination the service may call',
    remediation: ['Use a public http(s) URL; private and loopback addresses are refused unless allow-listed'],
  },
  secrets_unavailable: {
    status: 503,
    title: 'Secret encryption is not configured',
    remediation: ['Ask the operator to set SECRETS_ENCRYPTION_KEY', 'Contact support quoting incident_id if it is set'],
  },
  // Orchestration layer. The four codes of the spec: agent_not_registered (403), safety_violation (403),
  // escalation_required (422), rule_conflict (409).
  agent_not_registered: {
    status: 403,
    title: 'The AI agent is not registered (or not active)',
    remediation: ['Register the agent with POST /v1/orch/agents/register and call with its API key'],
  },
  agent_id_mismatch: {
    status: 403,
    title: 'X-Agent-ID names another agent than the API key',
    remediation: ['Send the X-Agent-ID of the agent the API key belongs to, or omit it'],
  },
  safety_violation: {
    status: 403,
    title: 'The action violates a safety boundary',
    remediation: ['Stay within the boundary (GET /v1/orch/boundaries), or route the task to a human'],
  },
  confidence_below_threshold: {
    status: 422,
    title: 'AI confidence is below the 0.70 threshold for autonomous action',
    remediation: ['Escalate to a human (POST /v1/orch/escalate); escalation.suggested_reviewers names candidates'],
  },
  escalation_required: {
    status: 422,
    title: 'Human escalation is required',
    remediation: ['Escalate the task to a human reviewer before acting'],
  },
  confidence_mismatch: {
    status: 422,
    title: 'X-Confidence-Score disagrees with the body’s confidence',
    remediation: ['Send the same confidence in X-Confidence-Score and the body, or only one of them'],
  },
  rule_conflict: {
    status: 409,
    title: 'The escalation rule conflicts with, or is shadowed by, an enabled rule',
    remediation: [
      'Resolve the conflicts listed: change priority, conditions or actions',
      'Or set allow_conflicts true to store it anyway',
    ],
  },
  routing_closed: {
    status: 409,
    title: 'The routing no longer takes escalations or confidence reports',
    remediation: ['Start a new routing for further work on the task'],
  },
  routing_not_queued: {
    status: 409,
    title: 'The routing is not waiting in the queue for a reviewer',
    remediation: [
      'Read the routing’s status with GET /v1/orch/routing/{routing_id}: only a queued routing takes an assignment',
    ],
  },
  reviewer_passport_not_found: {
    status: 422,
    title: 'No such Passport in the organization',
    remediation: [
      'Name the passport_id of an existing Passport, or omit it to link the Passport with the reviewer’s DID',
    ],
  },
  reviewer_not_available: {
    status: 422,
    title: 'No available reviewer is registered with this DID',
    remediation: ['Register or update the reviewer with PUT /v1/orch/reviewers/{did}, or name an available one'],
  },
  did_encoding_ambiguous: {
    status: 400,
    title: 'The DID in the path is not encoded unambiguously',
    remediation: [
      'Percent-encode the DID as a whole (encodeURIComponent)',
      'Or send it as it is with each % of it written %25 (a DID’s own %3A as %253A)',
    ],
  },
  routing_not_completed: {
    status: 409,
    title: 'The routing has no outcome yet',
    remediation: ['Wait until the routing completes (GET /v1/orch/routing/{routing_id}), then retry'],
  },
  rule_not_found: {
    status: 404,
    title: 'No such escalation rule',
    remediation: ['List rules with GET /v1/orch/escalation/rules'],
  },
  safety_domain_not_found: {
    status: 404,
    title: 'No safety configuration for this domain',
    remediation: ['Configure the domain with PUT /v1/orch/safety/config/{domain}'],
  },
  // Passkeys (WebAuthn) and sessions.
  webauthn_challenge_invalid: {
    status: 400,
    title: 'The WebAuthn challenge is unknown, already used or expired',
    remediation: ['Start the ceremony again: ask for new options and answer them once, before their expires_at'],
  },
  webauthn_response_invalid: {
    status: 400,
    title: 'The authenticator’s response did not verify',
    remediation: [
      'Answer the options with a passkey on an origin of this deployment, with user verification (PIN or biometrics)',
      'Start the ceremony again with new options',
    ],
  },
  passkey_sign_in_failed: {
    status: 401,
    title: 'Signing in with the passkey failed',
    remediation: [
      'Sign in with another passkey of the Passport',
      'A revoked passkey (rotated away, or cloned) cannot sign in again: add or enroll a new one',
    ],
  },
  person_already_enrolled: {
    status: 409,
    title: 'The organization already has an active person with this userId',
    remediation: ['Have the person add a passkey to their Passport while signed in, or enroll under another userId'],
  },
  passkey_already_registered: {
    status: 409,
    title: 'This passkey is already registered',
    remediation: ['Sign in with it instead, or register another authenticator'],
  },
  passkey_not_rotatable: {
    status: 409,
    title: 'The passkey to rotate is not an active passkey of this Passport',
    remediation: ['Name an active passkey of the Passport in credentialId, or sign in with the passkey to rotate'],
  },
  // Reasoning, the model registry and the prompt registry.
  model_not_found: {
    status: 404,
    title: 'No such model in the registry',
    remediation: ['List models with GET /v1/models and use a model_id from there'],
  },
  model_exists: {
    status: 409,
    title: 'A model with this id is already registered',
    remediation: ['Change it with PATCH /v1/models/{model_id}, or register under another id'],
  },
  reasoning_not_configured: {
    status: 503,
    title: 'No model provider is configured for this model or this deployment',
    remediation: [
      'Ask the operator to set REASONING_PROVIDERS (provider name → OpenAI-compatible base_url and api_key) and restart the API',
      'Meanwhile, leave pinned_model out so that a model of a configured provider is chosen',
    ],
  },
  model_providers_unavailable: {
    status: 503,
    title: 'No model provider answered',
    remediation: [
      'Retry after Retry-After; metadata in detail names each provider tried and why it failed',
      'Raise the budget or leave pinned_model out to allow more alternatives',
    ],
  },
  pinned_model_unknown: {
    status: 422,
    title: 'pinned_model names no model of the registry',
    remediation: ['Pin a model_id listed by GET /v1/models, or leave pinned_model out'],
  },
  pinned_model_deprecated: {
    status: 422,
    title: 'pinned_model names a deprecated model',
    remediation: ['Pin an active model, or leave pinned_model out so that the service chooses'],
  },
  no_model_available: {
    status: 422,
    title: 'No model of the registry can take this request',
    remediation: [
      'Read detail for why each model was left out (context too small, provider not configured)',
      'Lower max_tokens or shorten the messages, or register a suitable model',
    ],
  },
  reasoning_call_not_found: {
    status: 404,
    title: 'No such reasoning call',
    remediation: ['Use metadata.callId from the POST /v1/reason answer'],
  },
  prompt_not_found: {
    status: 404,
    title: 'No such prompt',
    remediation: ['Check the key (or URL-encoded prompt://org/<org>/<key> URI); list prompts with GET /v1/prompts'],
  },
  prompt_version_not_found: {
    status: 404,
    title: 'No such version of the prompt',
    remediation: ['List its versions with GET /v1/prompts/{key}/versions'],
  },
  prompt_version_exists: {
    status: 409,
    title: 'This version of the prompt is already published',
    remediation: ['Publish under a new semver version; published versions never change'],
  },
  prompt_version_deprecated: {
    status: 409,
    title: 'The version is deprecated',
    remediation: ['Roll back to (or name as successor) a version that is not deprecated'],
  },
  prompt_version_active: {
    status: 409,
    title: 'The active version cannot be deprecated without a successor',
    remediation: [
      'Send successor_version: a published, not deprecated version that becomes active in its place',
      'Or publish or roll back to another version first',
    ],
  },
  prompt_extends_invalid: {
    status: 422,
    title: 'extends_uri does not name a published prompt of this organization',
    remediation: [
      'Use prompt://org/<org>/<key> or prompt://org/<org>/<key>@<version> of a published prompt of your organization',
    ],
  },
  prompt_extends_cycle: {
    status: 422,
    title: 'The change would make the prompt extend itself',
    remediation: ['Follow extends_uri from the target: it leads back to this prompt; extend another prompt or version'],
  },
  prompt_variables_invalid: {
    status: 422,
    title: 'prompt_variables do not match the prompt’s input_schema',
    remediation: [
      'Correct each variable listed in errors[] against the version’s input_schema (GET /v1/prompts/{key})',
    ],
  },
} as const satisfies Record<string, { status: number; title: string; remediation: readonly [string, ...string[]] }>;

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
