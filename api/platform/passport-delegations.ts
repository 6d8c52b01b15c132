import type { DelegationDeps } from '../../services/identity/delegations/context';
import { delegatePassportPermissions } from '../../services/people/delegations';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { IssuedTokenSchema, issuedView } from '../schemas/delegation';
import { DelegatePassportPermissionsSchema } from '../schemas/passport-delegations';
import { PassportIdParamsSchema } from '../schemas/passports';

/** The spec's "delegate Passport permissions": a delegation the token machinery honours like any other. */
export function registerPassportDelegationRoutes(api: ApiBuilder, deps: DelegationDeps): void {
  api.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/delegations',
    operationId: 'delegatePassportPermissions',
    summary: 'Delegate Passport permissions to an agent',
    description:
      'The person (signed in, or with a delegation token they hold) hands capabilities to the agent of the organization whose DID is ' +
      'delegateeDID: a delegation token whose sub is the person and act.sub the agent, no wider than the caller’s own session or token, ' +
      'revoked with it (POST /v1/delegations/{delegation_id}/revoke). A caller that is no person is 403 person_required, another person ' +
      '403 actor_mismatch, another organization’s Passport 404.',
    tags: ['Delegation'],
    auth: 'platform:write',
    rateLimit: 'default',
    idempotency: false,
    request: { params: PassportIdParamsSchema, body: DelegatePassportPermissionsSchema },
    responses: {
      201: { description: 'The agent’s delegation token (shown once)', schema: IssuedTokenSchema },
      403: { description: 'person_required, actor_mismatch, agent_delegation_refused or delegation_widening' },
      404: { description: 'passport_not_found or delegatee_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await delegatePassportPermissions(deps, principal, params.passport_id, body);
      if (outcome.ok) return { status: 201, body: issuedView(outcome.issued, new Date()) };
      switch (outcome.code) {
        case 'agent_not_found':
          throw new Problem('delegatee_not_found', `No agent of the organization is ${body.delegateeDID}`);
        case 'delegation_widening':
          throw new Problem(
            'delegation_widening',
            `Refused: ${outcome.widening.map((w) => w.field).join(', ')} would widen the parent`,
            {
              extensions: { widening: outcome.widening },
            },
          );
        case 'verification_tier_too_low':
        case 'identity_tier_too_low':
          throw new Problem(outcome.code);
        default:
          throw new Problem(outcome.code, outcome.detail);
      }
    },
  });
}
