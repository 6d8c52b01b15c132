import { createHash } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Knex } from 'knex';
import type { RecoveryCredential } from '../../contracts/aggregates/recovery-request';
import { findPassport, findPassportKey } from '../../db/passports';
import { activePasskeysOf, findPasskey } from '../../db/webauthn';
import { devicePublicKey } from '../identity/passports/devices';
import { jwkThumbprint } from '../identity/passports/keys';
import { creationOptions } from '../identity/passkeys/registration';
import { issueChallenge, takeChallenge, verifyNewPasskey, type CeremonyFailure } from '../identity/passkeys/ceremony';
import type { WebAuthnSettings } from '../identity/passkeys/settings';

/** The new credential as the request's body names it: a device key, or a passkey's registration response. */
export type NewCredentialInput =
  | { type?: 'device_key' | undefined; deviceId: string; publicKey: unknown }
  | { type: 'passkey'; registration: RegistrationResponseJSON };

export type NewCredentialRefusal =
  | { ok: false; code: 'invalid_public_key' | 'device_key_exists'; detail?: string }
  | CeremonyFailure
  | { ok: false; code: 'credential_exists'; detail: string };

type Resolved = { ok: true; credential: RecoveryCredential } | NewCredentialRefusal;

/**
 * What guardians approve for a passkey: base64url(SHA-256(credential_id + "." + public_key)), both as the
 * base64url text the request shows (no "." occurs in base64url, so the input splits one way only).
 */
export function passkeyCredentialHash(credentialId: string, publicKey: string): string {
  return createHash('sha256').update(`${credentialId}.${publicKey}`).digest('base64url');
}

/** A device key: checked before the request's transaction, as it consumes nothing. */
export async function deviceKeyCredential(
  db: Knex,
  input: { deviceId: string; publicKey: unknown },
): Promise<Resolved> {
  const key = devicePublicKey(input.publicKey);
  if (!key.ok) return { ok: false, code: 'invalid_public_key', detail: key.reason };
  const kid = jwkThumbprint(key.jwk);
  if (await findPassportKey(db, kid)) return { ok: false, code: 'device_key_exists' };
  return { ok: true, credential: { type: 'device_key', device_id: input.deviceId, public_jwk: key.jwk, hash: kid } };
}

/**
 * A passkey registered for this Passport's recovery: takes the challenge issued by recoveryPasskeyOptions
 * (single use, bound to the Passport, short-lived) inside the request's transaction, so that a request refused
 * for another reason leaves it unused, and verifies the attestation against it.
 */
export async function recoveryPasskeyCredential(
  trx: Knex.Transaction,
  settings: WebAuthnSettings,
  passportId: string,
  registration: RegistrationResponseJSON,
): Promise<Resolved> {
  const taken = await takeChallenge({ db: trx }, registration.response.clientDataJSON, {
    ceremony: 'recovery',
    passport_id: passportId,
  });
  if (!taken.ok) return taken;
  const verified = await verifyNewPasskey(settings, registration, taken.challenge.challenge);
  if (!verified.ok) return verified;
  const { passkey } = verified;
  if (await findPasskey(trx, passkey.credential_id))
    return { ok: false, code: 'credential_exists', detail: 'This passkey is already registered' };
  return {
    ok: true,
    credential: {
      type: 'passkey',
      ...passkey,
      hash: passkeyCredentialHash(passkey.credential_id, passkey.public_key),
    },
  };
}

export type RecoveryPasskeyOptionsOutcome =
  | { ok: true; options: PublicKeyCredentialCreationOptionsJSON; expires_at: Date }
  | { ok: false; code: 'passport_not_found' | 'recovery_person_only' };

/**
 * The creation options for a recovery's new passkey: a discoverable passkey with user verification, for the
 * Passport's own user handle (none of its active passkeys again), its challenge stored for the recovery
 * ceremony of this Passport only.
 */
export async function recoveryPasskeyOptions(
  deps: { db: Knex; webauthn: WebAuthnSettings },
  organizationId: string,
  passportId: string,
): Promise<RecoveryPasskeyOptionsOutcome> {
  const passport = await findPassport(deps.db, passportId, organizationId);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  if (passport.type !== 'individual') return { ok: false, code: 'recovery_person_only' };
  const ceremony = { db: deps.db, settings: { webauthn: deps.webauthn } };
  const existing = await activePasskeysOf(deps.db, passport.passport_id);
  const person = { passport_id: passport.passport_id, user_name: passport.name, display_name: passport.name };
  const options = await creationOptions(ceremony, person, existing);
  const challenge = await issueChallenge(ceremony, {
    challenge: options.challenge,
    ceremony: 'recovery',
    organization_id: passport.organization_id,
    passport_id: passport.passport_id,
    user_name: passport.name,
    display_name: passport.name,
    rotates_credential_id: null,
  });
  return { ok: true, options, expires_at: challenge.expires_at };
}

/** The passkey page that registers a recovery's passkey: the options ride in the fragment, never in a log. */
export function recoveryPageUrl(origin: string, options: PublicKeyCredentialCreationOptionsJSON): string {
  const page = new URL('/passkeys', origin);
  page.hash = `recovery=${Buffer.from(JSON.stringify(options)).toString('base64url')}`;
  return page.toString();
}
