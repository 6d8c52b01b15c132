import { startLink, verifyLink } from '../../services/people/links';
import type { PeopleDeps } from '../../services/people/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  OrganizationLinkSchema,
  OrganizationLinkVerifiedSchema,
  StartOrganizationLinkSchema,
  VerifyOrganizationLinkSchema,
} from '../schemas/organization-links';
import { PassportIdParamsSchema } from '../schemas/passports';

const OWN_ACT =
  'The person’s own act: a session of the Passport, or a delegation token they hold themselves (not an agent’s). ' +
  'A caller that is no person is 403 person_required, another person 403 actor_mismatch, another organization’s Passport 404.';

/** Linking a person's Passport to their organization by a code sent to their e-mail. */
export function registerOrganizationLinkRoutes(api: ApiBuilder, deps: PeopleDeps): void {
  const links = routeGroup(api, { tags: ['Passports'], auth: 'platform:write', rateLimit: 'default' });
  links.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/organization-links',
    operationId: 'linkPassportToOrganization',
    summary: 'Link a Passport to an organization: a verification code by e-mail',
    description:
      'linkingCode is the employee invitation’s (from its onboarding e-mail) and email the address it was sent to; a code of another ' +
      'organization, or for another address, is 404 linking_code_unknown. A 6-digit code goes to the address: it works once, for 15 minutes, ' +
      'with 5 attempts; asking again replaces it. ' +
      OWN_ACT,
    request: { params: PassportIdParamsSchema, body: StartOrganizationLinkSchema },
    responses: {
      202: {
        description: 'The code is sent; complete with POST …/organization-links/verify',
        schema: OrganizationLinkSchema,
      },
      403: { description: 'person_required or actor_mismatch' },
      404: { description: 'passport_not_found or linking_code_unknown' },
      409: { description: 'linking_code_used' },
      410: { description: 'linking_code_expired' },
      503: { description: 'mail_unavailable or secrets_unavailable: no code was kept' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await startLink(deps, principal, params.passport_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      const { link } = outcome;
      return {
        status: 202,
        body: {
          linkId: link.link_id,
          passportId: link.passport_id,
          organizationId: link.organization_id,
          email: link.email,
          status: 'pending' as const,
          expiresAt: link.expires_at.toISOString(),
        },
      };
    },
  });

  links.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/organization-links/verify',
    operationId: 'verifyOrganizationLink',
    summary: 'Verify the e-mail and complete the Passport-to-organization link',
    description:
      'The code of the latest e-mail. A right one links the Passport (the employee record becomes active), raises its identity tier to 1 ' +
      '(the exchange’s required_identity_tier) and records the organization’s trust attestation, signed by the organization Passport’s key. ' +
      'Each attempt counts; the fifth wrong one ends the verification. ' +
      OWN_ACT,
    request: { params: PassportIdParamsSchema, body: VerifyOrganizationLinkSchema },
    responses: {
      200: { description: 'Linked', schema: OrganizationLinkVerifiedSchema },
      400: { description: 'verification_code_invalid, with attempts_remaining' },
      403: { description: 'person_required or actor_mismatch' },
      404: { description: 'passport_not_found or organization_link_not_found' },
      409: { description: 'verification_code_used, verification_attempts_exhausted or employee_already_linked' },
      410: { description: 'verification_code_expired' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await verifyLink(deps, principal, params.passport_id, body.verificationCode);
      if (!outcome.ok)
        throw new Problem(outcome.code, outcome.detail, {
          ...('attempts_remaining' in outcome
            ? { extensions: { attempts_remaining: outcome.attempts_remaining } }
            : {}),
        });
      return {
        status: 200,
        body: {
          message: 'The Passport is linked to the organization',
          passportId: outcome.link.passport_id,
          organizationId: outcome.link.organization_id,
          identityTier: outcome.attestation.identity_tier,
          attestationId: outcome.attestation.attestation_id,
        },
      };
    },
  });
}
