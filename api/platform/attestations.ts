import type { Knex } from 'knex';
import { findAttestation, listAttestations } from '../../db/passport-attestations';
import { findPassport } from '../../db/passports';
import { attestPerson } from '../../services/people/attestations';
import type { PassportSettings } from '../../services/identity/passports/settings';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import {
  ATTESTATION_SORTABLE,
  AttestationParamsSchema,
  AttestPersonSchema,
  attestationView,
  ListAttestationsQuerySchema,
  PassportAttestationSchema,
} from '../schemas/attestations';
import { PassportIdParamsSchema } from '../schemas/passports';

const VERIFY =
  'Each verifies offline against the issuer’s DID document (GET /passports/{issuer passport}/did.json): ' +
  'npm run verify -- --did-document <document> <attestation>.';

/** What organizations attest about their people, each signed by the organization's key. */
export function registerAttestationRoutes(api: ApiBuilder, deps: { db: Knex; settings: PassportSettings }): void {
  const attestations = routeGroup(api, { tags: ['Passports'], auth: 'platform:read', rateLimit: 'default' });
  const passportOfOrganization = (organizationId: string, passportId: string) =>
    findPassport(deps.db, passportId, organizationId);

  attestations.list({
    path: '/v1/passports/{passport_id}/attestations',
    operationId: 'listPassportAttestations',
    summary: 'Attestations of a Passport',
    description: `The spec’s Attestation (attestationId, skill, issuer, timestamp) with its proof, oldest first. ${VERIFY}`,
    params: PassportIdParamsSchema,
    query: ListAttestationsQuerySchema,
    page: { description: 'A page of attestations', item: PassportAttestationSchema, name: 'PassportAttestationPage' },
    responses: { 404: { description: 'passport_not_found (another organization’s Passport too)' } },
    parent: {
      find: ({ params, principal }) => passportOfOrganization(principal.organization_id, params.passport_id),
      missing: 'passport_not_found',
    },
    sort: { allowed: ATTESTATION_SORTABLE, fallback: 'timestamp', uniqueKey: 'attestation_id' },
    list: ({ params, page }) => listAttestations(deps.db, params.passport_id, page),
    view: attestationView,
  });

  attestations.get({
    path: '/v1/passports/{passport_id}/attestations/{attestation_id}',
    operationId: 'getPassportAttestation',
    summary: 'Read one attestation of a Passport, to verify it offline',
    description: VERIFY,
    params: AttestationParamsSchema,
    found: { description: 'The attestation', schema: PassportAttestationSchema },
    missing: { code: 'attestation_not_found' },
    find: async ({ params, principal }) =>
      (await passportOfOrganization(principal.organization_id, params.passport_id))
        ? findAttestation(deps.db, params.passport_id, params.attestation_id)
        : undefined,
    view: attestationView,
  });

  attestations.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/attestations',
    operationId: 'attestPerson',
    summary: 'The organization attests a skill of a person of it',
    description:
      'Signed by the organization Passport’s key; raises the person’s identity tier to 2. The person must be linked to the organization ' +
      `(an active employee). Needs people:attest (platform:admin implies it). ${VERIFY}`,
    auth: 'platform:admin',
    request: { params: PassportIdParamsSchema, body: AttestPersonSchema },
    responses: {
      201: { description: 'The attestation', schema: PassportAttestationSchema },
      404: { description: 'passport_not_found' },
      409: { description: 'passport_not_linked' },
      503: { description: 'organization_key_unavailable' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await attestPerson(deps, principal, params.passport_id, body.skill);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: attestationView(outcome.attestation) };
    },
  });
}
