import {
  approveRecovery,
  cancelRecovery,
  executeRecovery,
  findRequest,
  openRecovery,
  type NewRecovery,
  type RecoveryServiceDeps,
} from '../../services/recovery/requests';
import type { Principal } from '../../services/identity/scopes';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { PassportIdParamsSchema } from '../schemas/passports';
import {
  ApproveRecoverySchema,
  CreateRecoverySchema,
  ExecuteRecoverySchema,
  RecoveryPasskeyOptionsSchema,
  RecoveryRequestParamsSchema,
  RecoveryRequestSchema,
  recoveryRequestView,
  StartWebAuthnRecoverySchema,
} from '../schemas/recovery';
import { recoveryPageUrl, recoveryPasskeyOptions } from '../../services/recovery/new-credential';
import { openingProblem, PERSON_RESPONSES, recoveryProblem } from './recovery-problems';

const REQUEST = { description: 'The recovery request', schema: RecoveryRequestSchema };
const NOT_FOUND = { 404: { description: 'recovery_request_not_found' } };
const OPENING_REFUSALS = {
  400: {
    description:
      'invalid_public_key; for a passkey: webauthn_challenge_invalid (reason challenge_unknown: not issued for this Passport’s recovery, or used already; challenge_expired), webauthn_response_invalid (a bad attestation, wrong origin or RP, no user verification)',
  },
  404: { description: 'passport_not_found' },
  409: {
    description:
      'recovery_request_open (one open request per Passport), recovery_guardians_insufficient (3 to 5 in effect), recovery_person_only, device_key_exists, passkey_already_registered',
  },
  503: {
    description:
      'mail_unavailable (no SMTP_URL) or secrets_unavailable (no SECRETS_ENCRYPTION_KEY for the code’s HMAC)',
  },
};
const OPENING =
  'Snapshots the Passport’s guardians in effect (3 to 5) and starts recoverPassportWorkflow: guardians approve (a strict majority), a time lock of RECOVERY_TIME_LOCK_SECONDS (48 h) follows during which the owner may cancel, then an 8-digit confirmation code goes to recoveryContact (15 minutes, 5 attempts, once). The owner’s address of record (the Passport’s metadata.email) is told at every step. Needs a recovery desk’s power: people:enroll (recovery:request).';

async function opened(deps: RecoveryServiceDeps, principal: Principal, body: NewRecovery) {
  const outcome = await openRecovery(deps, principal, body);
  if (!outcome.ok) throw openingProblem(outcome);
  return { status: 201, body: recoveryRequestView(outcome.request) };
}

/** Guardian recovery requests: opened by a recovery desk, approved by guardians, cancelled by the owner, executed with the code. */
export function registerRecoveryRequestRoutes(api: ApiBuilder, deps: RecoveryServiceDeps): void {
  const requests = routeGroup(api, { tags: ['Passport recovery'], auth: 'platform:write', rateLimit: 'default' });
  requests.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/requests',
    operationId: 'createRecoveryRequest',
    summary: 'Create recovery request',
    description: OPENING,
    auth: 'people:enroll',
    request: { params: PassportIdParamsSchema, body: CreateRecoverySchema },
    responses: { 201: REQUEST, ...OPENING_REFUSALS },
    handler: ({ params, body, principal }) =>
      opened(deps, principal, { ...body, passport: { passport_id: params.passport_id } }),
  });
  requests.route({
    method: 'post',
    path: '/v1/webauthn/recovery/start',
    operationId: 'startWebAuthnRecovery',
    summary: 'Start WebAuthn recovery',
    description: `The same request, naming the Passport by its DID (initiator). ${OPENING} The new credential is a device key or a passkey registered for this recovery.`,
    auth: 'people:enroll',
    request: { body: StartWebAuthnRecoverySchema },
    responses: { 201: REQUEST, ...OPENING_REFUSALS },
    handler: ({ body, principal }) => {
      const { initiator, ...rest } = body;
      return opened(deps, principal, { ...rest, passport: { did: initiator } });
    },
  });
  registerPasskeyOptions(requests, deps);
  requests.route({
    method: 'get',
    path: '/v1/passports/{passport_id}/recovery/requests/{request_id}',
    operationId: 'getRecoveryRequest',
    summary: 'Read a recovery request',
    auth: 'platform:read',
    request: { params: RecoveryRequestParamsSchema },
    responses: { 200: REQUEST, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const found = await findRequest(deps, principal, params.passport_id, params.request_id);
      if (!found.ok) throw recoveryProblem(found);
      return { status: 200, body: recoveryRequestView(found.request) };
    },
  });
  registerActs(requests, deps);
}

function registerPasskeyOptions(requests: ReturnType<typeof routeGroup>, deps: RecoveryServiceDeps): void {
  requests.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/passkey-options',
    operationId: 'createRecoveryPasskeyOptions',
    summary: 'Passkey registration options for a recovery',
    description:
      'A recovery desk (people:enroll) asks for the options of the passkey that will replace the Passport’s credentials. The person’s browser completes them (registration_url is a page of this deployment that does), and the registration response becomes the request’s newCredential ({ type: passkey, registration }). The challenge is stored for this Passport’s recovery only, answers once, and expires at expires_at; the passkey is installed only when the recovery completes.',
    auth: 'people:enroll',
    request: { params: PassportIdParamsSchema },
    responses: {
      201: { description: 'The options for navigator.credentials.create()', schema: RecoveryPasskeyOptionsSchema },
      404: { description: 'passport_not_found' },
      409: { description: 'recovery_person_only' },
    },
    handler: async ({ params, principal }) => {
      const outcome = await recoveryPasskeyOptions(deps, principal.organization_id, params.passport_id);
      if (!outcome.ok) throw recoveryProblem(outcome);
      const { options, expires_at } = outcome;
      const registration_url = recoveryPageUrl(deps.webauthn.origins[0]!, options);
      return { status: 201, body: { options, expires_at: expires_at.toISOString(), registration_url } };
    },
  });
}

function registerActs(requests: ReturnType<typeof routeGroup>, deps: RecoveryServiceDeps): void {
  requests.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/requests/{request_id}/approvals',
    operationId: 'approveRecoveryRequest',
    summary: 'Approve recovery request',
    description:
      'A guardian of the request’s snapshot, signed in as themself (approvedBy may only repeat their DID), binds the approval to the request (nonce) and the new credential (newCredentialHash). Once per guardian; the owner never counts.',
    request: { params: RecoveryRequestParamsSchema, body: ApproveRecoverySchema },
    responses: {
      200: REQUEST,
      ...PERSON_RESPONSES,
      ...NOT_FOUND,
      409: {
        description:
          'recovery_approval_replayed, recovery_approval_other_request, recovery_credential_mismatch, recovery_approval_stale, recovery_not_collecting',
      },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await approveRecovery(deps, principal, params, body);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: recoveryRequestView(outcome.request) };
    },
  });
  requests.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/requests/{request_id}/cancel',
    operationId: 'cancelRecoveryRequest',
    summary: 'Cancel a recovery request',
    description:
      'The owner, signed in with any credential still valid, while the request collects approvals or is time-locked.',
    request: { params: RecoveryRequestParamsSchema },
    responses: { 200: REQUEST, ...PERSON_RESPONSES, ...NOT_FOUND, 409: { description: 'recovery_not_cancellable' } },
    handler: async ({ params, principal }) => {
      const outcome = await cancelRecovery(deps, principal, params);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: recoveryRequestView(outcome.request) };
    },
  });
  requests.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/requests/{request_id}/execute',
    operationId: 'executeRecovery',
    summary: 'Execute approved recovery',
    description:
      'With the confirmation code sent to the recovery contact: the new passkey or device key replaces the Passport’s passkeys and device keys, which are revoked with every session and delegation token they signed. A wrong code answers 400 with attempts_left; the fifth ends the request.',
    auth: 'people:enroll',
    request: { params: RecoveryRequestParamsSchema, body: ExecuteRecoverySchema },
    responses: {
      200: REQUEST,
      400: { description: 'recovery_code_invalid (attempts_left)' },
      ...NOT_FOUND,
      409: {
        description:
          'recovery_not_awaiting_confirmation (no code sent, or it expired), recovery_code_attempts_exhausted',
      },
      422: {
        description:
          'invalid_data: the new passkey was registered to another Passport since the request was made; the request failed and no credential was replaced',
      },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await executeRecovery(deps, principal, params, body.confirmationCode);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: recoveryRequestView(outcome.request) };
    },
  });
}
