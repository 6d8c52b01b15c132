import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  consumeChallenge,
  findChallenge,
  findPassportKey,
  insertPassport,
  insertPassportKey,
  type ChallengeRow,
} from '../../../db/passports';
import { didKeyOfJwk, passportDidWeb, type Ed25519PublicJwk } from '../../../domain/identity/did';
import {
  challengeRefusal,
  consumedRefusal,
  devicePublicKey,
  hashOf,
  verifyProof,
  type CeremonyRefusal,
  type DeviceCeremonyDeps,
} from './devices';
import { recordPassportCreated } from './creation-record';
import { jwkThumbprint, publicJwkRow } from './keys';
import { readPassport, type PassportWithKeys } from './passports';

export type RegistrationOutcome =
  { ok: true; passport: PassportWithKeys } | CeremonyRefusal | { ok: false; code: 'device_key_exists'; detail: string };

/**
 * Mints a person's Passport from a device's proof: a JWT signed by the device's Ed25519 key over the
 * registration challenge and the device id. The signature is checked before the challenge is consumed, so a
 * forged proof cannot burn someone's invitation.
 */
export async function registerDevice(
  deps: DeviceCeremonyDeps,
  body: { proof: string; deviceId: string; publicKey: unknown },
): Promise<RegistrationOutcome> {
  const key = devicePublicKey(body.publicKey);
  if (!key.ok)
    return { ok: false, code: 'invalid', errors: [{ field: 'publicKey', code: 'custom', message: key.reason }] };
  const verified = await verifyProof(body.proof, key.jwk);
  if (!verified.ok) return { ok: false, code: 'device_proof_invalid', detail: verified.detail };
  if (verified.payload.deviceId !== body.deviceId)
    return { ok: false, code: 'device_proof_invalid', detail: 'The proof names another deviceId than the body' };
  const challengeHash = hashOf(verified.payload.challenge);
  const challenge = await findChallenge(deps.db, challengeHash);
  const now = new Date();
  const refusal = challengeRefusal(challenge, { purpose: 'registration' }, now);
  if (refusal || !challenge?.registration)
    return refusal ?? { ok: false, code: 'challenge_unknown', detail: 'The challenge is not a registration' };
  const kid = jwkThumbprint(key.jwk);
  if (await findPassportKey(deps.db, kid))
    return {
      ok: false,
      code: 'device_key_exists',
      detail: `The key ${kid} is registered already; a device registers a new key for a new Passport`,
    };

  const passportId = `pp_${randomUUID()}`;
  const person = challenge.registration;
  const registration = {
    passportId,
    kid,
    jwk: key.jwk,
    deviceId: body.deviceId,
    challenge,
    person,
    challengeHash,
    now,
  };
  const registered = await deps.db.transaction((trx) => recordRegistration(trx, deps, registration));
  if (!registered) return consumedRefusal(deps.db, challengeHash, { purpose: 'registration' });
  return { ok: true, passport: (await readPassport(deps.db, passportId))! };
}

/** In one transaction: the challenge consumed, the person's Passport, its device key and their provenance. */
async function recordRegistration(
  trx: Knex.Transaction,
  deps: DeviceCeremonyDeps,
  registration: {
    passportId: string;
    kid: string;
    jwk: Ed25519PublicJwk;
    deviceId: string;
    challenge: ChallengeRow;
    person: NonNullable<ChallengeRow['registration']>;
    challengeHash: string;
    now: Date;
  },
): Promise<boolean> {
  const { passportId, kid, jwk, deviceId, challenge, person, challengeHash, now } = registration;
  const did = passportDidWeb(deps.settings.publicBaseUrl, passportId);
  if (!(await consumeChallenge(trx, challengeHash, now))) return false;
  await insertPassport(trx, {
    passport_id: passportId,
    did,
    type: 'individual',
    name: person.name,
    organization_id: challenge.organization_id,
    metadata: person.metadata,
    capabilities: person.capabilities,
    created_at: now,
  });
  await insertPassportKey(
    trx,
    {
      kid,
      passport_id: passportId,
      public_jwk: publicJwkRow(jwk, kid),
      sealed_private_key: null,
      source: 'device',
      device_id: deviceId,
    },
    now,
  );
  const created = {
    passport_id: passportId,
    did,
    type: 'individual' as const,
    organization_id: challenge.organization_id,
    kid,
    did_key: didKeyOfJwk(jwk),
    key_source: 'device' as const,
  };
  await recordPassportCreated(trx, created, {
    actor: { type: 'human', did },
    input_data: { invited_by: challenge.requested_by, device_id: deviceId, ceremony: 'device_registration' },
    reasoning: `A device proved possession of the key ${kid} over a registration challenge from ${challenge.requested_by ?? 'the service'}; the person's Passport ${did} holds only its public key`,
    at: now,
  });
  return true;
}
