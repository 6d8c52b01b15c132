import { revokePassportKeyOf, rotatePassportKeys } from '../../services/identity/passports/key-changes';
import type { PassportServiceDeps } from '../../services/identity/passports/passports';
import type { RevocationRegistry } from '../../services/identity/delegations/revocations';
import { Problem } from '../problem';
import type { RouteGroup } from '../route-group';
import {
  KeysRotatedSchema,
  keyView,
  PassportIdParamsSchema,
  PassportKeyParamsSchema,
  RevokedKeySchema,
  RevokeKeySchema,
  RotateKeysSchema,
} from '../schemas/passports';

type KeyServiceDeps = PassportServiceDeps & { revocations: RevocationRegistry };

/** The refusal of a caller without the administrator scope a Passport needs (platform:admin, people:enroll), as its problem. */
export function organizationAdminProblem(
  refusal: { code: 'insufficient_scope'; required_scope: string },
  detail: string,
): Problem {
  return new Problem(refusal.code, detail, { extensions: { required_scope: refusal.required_scope } });
}

const KEYS_NEED_ADMIN = 'The organization Passport’s keys need the scope platform:admin';
const PERSON_KEYS_NEED_ADMIN =
  'A person’s key is revoked by an administrator of people: the scope people:enroll (or platform:admin), not platform:write alone';

/** A Passport's server keys: rotated, or one revoked. */
export function registerPassportKeyRoutes(passports: RouteGroup, services: KeyServiceDeps): void {
  registerRotateKeys(passports, services);
  registerRevokeKey(passports, services);
}

function registerRotateKeys(passports: RouteGroup, services: KeyServiceDeps): void {
  passports.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/keys/rotate',
    operationId: 'rotatePassportKeys',
    summary: 'Rotate an agent’s or the organization’s key',
    description:
      'A new key signs from now on; the old one is retired: it stays in the DID document and the JWKS, verifying what it signed, until ' +
      'verifyUntil (PASSPORT_KEY_VERIFY_WINDOW_SECONDS, the longest a Passport signature lives), and signs nothing more. A person’s keys live on ' +
      'their devices (409 passport_keys_on_device). The organization Passport needs platform:admin.',
    auth: 'platform:write',
    request: { params: PassportIdParamsSchema, body: RotateKeysSchema },
    responses: {
      200: { description: 'The new key, and the keys it retired', schema: KeysRotatedSchema },
      403: { description: 'insufficient_scope: the organization Passport needs platform:admin' },
      404: { description: 'passport_not_found: no such Passport in the caller’s organization' },
      409: { description: 'passport_keys_on_device: a person’s Passport' },
      503: { description: 'secrets_unavailable' },
    },
    handler: async ({ params, principal }) => {
      const outcome = await rotatePassportKeys(services, principal, params.passport_id);
      if (!outcome.ok) {
        if (outcome.code === 'insufficient_scope') throw organizationAdminProblem(outcome, KEYS_NEED_ADMIN);
        const details = {
          passport_not_found: `No Passport ${params.passport_id}`,
          passport_keys_on_device:
            'A person’s keys are made and kept on their devices: register a new device key, and revoke the old one',
          secrets_unavailable: 'No key can be sealed: SECRETS_ENCRYPTION_KEY is not configured',
        };
        throw new Problem(outcome.code, details[outcome.code]);
      }
      return {
        status: 200,
        body: {
          passportId: params.passport_id,
          did: outcome.passport.passport.did,
          key: keyView(outcome.key),
          retired: outcome.retired.map(keyView),
        },
      };
    },
  });
}

function registerRevokeKey(passports: RouteGroup, services: KeyServiceDeps): void {
  passports.route({
    method: 'post',
    path: '/v1/passports/{passport_id}/keys/{kid}/revoke',
    operationId: 'revokePassportKey',
    summary: 'Revoke a key of a Passport',
    description:
      'Immediately unusable: the key signs nothing more, what it signed no longer verifies, it leaves the DID document and the JWKS, and a session ' +
      'signed in with it (a device key) ends, with every delegation token exchanged from such a session (and every delegation below it), in the ' +
      'same transaction: refused at once by this instance and within a second by the others. An agent or organization whose active key is revoked signs again after a rotation. The organization ' +
      'Passport needs platform:admin. A person’s key (a device key) needs an administrator of people: people:enroll (with ' +
      'platform:write) or platform:admin; platform:write alone revokes agents’ keys only.',
    auth: 'platform:write',
    request: { params: PassportKeyParamsSchema, body: RevokeKeySchema },
    responses: {
      200: { description: 'The revoked key', schema: RevokedKeySchema },
      403: {
        description:
          'insufficient_scope: the organization Passport needs platform:admin; a person’s Passport people:enroll (required_scope names which)',
      },
      404: { description: 'passport_not_found, or passport_key_not_found' },
      409: { description: 'passport_key_already_revoked' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokePassportKeyOf(services, principal, params.passport_id, params.kid, body.reason);
      if (!outcome.ok) {
        if (outcome.code === 'insufficient_scope')
          throw organizationAdminProblem(
            outcome,
            outcome.required_scope === 'people:enroll' ? PERSON_KEYS_NEED_ADMIN : KEYS_NEED_ADMIN,
          );
        const details = {
          passport_not_found: `No Passport ${params.passport_id}`,
          passport_key_not_found: `The Passport has no key ${params.kid}`,
          passport_key_already_revoked: `The key ${params.kid} is revoked already`,
        };
        throw new Problem(outcome.code, details[outcome.code]);
      }
      return { status: 200, body: { passportId: params.passport_id, key: keyView(outcome.key) } };
    },
  });
}
