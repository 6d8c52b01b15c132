import {
  acceptGuardianship,
  enrollGuardian,
  listGuardians,
  removeGuardian,
  type GuardianServiceDeps,
} from '../../services/recovery/guardians';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { PassportIdParamsSchema } from '../schemas/passports';
import {
  EnrollGuardianSchema,
  GuardianParamsSchema,
  RecoveryGuardianListSchema,
  RecoveryGuardianSchema,
  recoveryGuardianView,
} from '../schemas/recovery';
import { PERSON_RESPONSES, recoveryProblem } from './recovery-problems';

const GUARDIAN = { description: 'The guardian', schema: RecoveryGuardianSchema };
const OPEN = { description: 'recovery_request_open: guardians do not change while a request is open' };

/** A Passport's recovery guardians: named and removed by the owner, accepted by the guardian, each signed in. */
export function registerRecoveryGuardianRoutes(api: ApiBuilder, deps: GuardianServiceDeps): void {
  const guardians = routeGroup(api, { tags: ['Passport recovery'], auth: 'platform:write', rateLimit: 'default' });
  guardians.route({
    method: 'get',
    path: '/v1/passports/{passport_id}/recovery/guardians',
    operationId: 'listRecoveryGuardians',
    summary: 'List a Passport’s recovery guardians',
    description:
      'The owner’s session, or an administrator’s token of the organization; another person’s session is refused.',
    auth: 'platform:read',
    request: { params: PassportIdParamsSchema },
    responses: {
      200: { description: 'The guardians', schema: RecoveryGuardianListSchema },
      ...PERSON_RESPONSES,
      404: { description: 'passport_not_found' },
    },
    handler: async ({ params, principal }) => {
      const outcome = await listGuardians(deps, principal, params.passport_id);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: { data: outcome.guardians.map(recoveryGuardianView) } };
    },
  });
  guardians.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/guardians',
    operationId: 'enrollRecoveryGuardian',
    summary: 'Enroll recovery guardian',
    description:
      'The owner, signed in, invites a person of the organization (by DID; never the owner). The guardian accepts within RECOVERY_GUARDIAN_ACCEPT_WINDOW_SECONDS (7 days) and counts RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS (24 h) after accepting. At most five guardians, invitations included. An e-mail guardian receives the invitation by mail, an sms guardian by text (SMS_API_URL); the contact is then an E.164 number.',
    request: { params: PassportIdParamsSchema, body: EnrollGuardianSchema },
    responses: {
      201: GUARDIAN,
      ...PERSON_RESPONSES,
      404: {
        description: 'passport_not_found, or recovery_guardian_unknown: the DID names no person of the organization',
      },
      409: {
        description: `${OPEN.description}; recovery_guardian_is_owner, recovery_guardian_exists, recovery_guardians_full`,
      },
      503: {
        description:
          'mail_unavailable (no SMTP_URL) or sms_unavailable (no SMS provider, or it refused the text): the guardian cannot be invited, so nothing was stored',
      },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await enrollGuardian(deps, principal, params.passport_id, body);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 201, body: recoveryGuardianView(outcome.guardian) };
    },
  });
  guardians.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/recovery/guardians/{guardian_id}/accept',
    operationId: 'acceptRecoveryGuardianship',
    summary: 'Accept being a recovery guardian',
    description: 'The invited person, signed in as their own Passport, within the acceptance window.',
    request: { params: GuardianParamsSchema },
    responses: {
      200: GUARDIAN,
      ...PERSON_RESPONSES,
      404: { description: 'recovery_guardian_not_found' },
      409: {
        description: `${OPEN.description}; recovery_invitation_expired, recovery_guardian_already_accepted, recovery_guardian_removed`,
      },
    },
    handler: async ({ params, principal }) => {
      const outcome = await acceptGuardianship(deps, principal, params.passport_id, params.guardian_id);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: recoveryGuardianView(outcome.guardian) };
    },
  });
  guardians.route({
    method: 'delete',
    path: '/v1/passports/{passport_id}/recovery/guardians/{guardian_id}',
    operationId: 'removeRecoveryGuardian',
    summary: 'Remove a recovery guardian',
    description:
      'The owner, signed in. An invitation goes at once; a guardian in effect stops counting after RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS (removal_effective_at).',
    request: { params: GuardianParamsSchema },
    responses: {
      200: GUARDIAN,
      ...PERSON_RESPONSES,
      404: { description: 'recovery_guardian_not_found' },
      409: { description: `${OPEN.description}; recovery_guardian_removed` },
    },
    handler: async ({ params, principal }) => {
      const outcome = await removeGuardian(deps, principal, params.passport_id, params.guardian_id);
      if (!outcome.ok) throw recoveryProblem(outcome);
      return { status: 200, body: recoveryGuardianView(outcome.guardian) };
    },
  });
}
