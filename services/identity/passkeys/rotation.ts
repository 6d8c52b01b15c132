import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  activePasskeysOf,
  findPasskey,
  insertPasskey,
  revokePasskey,
  type PasskeyRow,
  type PassportIdentity,
} from '../../../db/webauthn';
import type { RevocationRow } from '../../../db/delegation';
import { applyCredentialRevocations, revokeDelegationsOfCredential } from '../delegations/credential-revocations';
import type { Session } from '../issuance/session-tokens';
import {
  issueChallenge,
  signInWithPasskey,
  takeChallenge,
  verifyNewPasskey,
  type CeremonyFailure,
  type SignedIn,
  type WebAuthnDeps,
} from './ceremony';
import { creationOptions, type CreationOptions } from './registration';

export type StartRotationOutcome =
  | ({ ok: true; rotates_credential_id: string } & CreationOptions)
  | { ok: false; code: 'passkey_not_rotatable'; detail: string };

/**
 * Options for a passkey that will replace one of the person's: the one named, or by default the one the
 * session was signed in with.
 */
export async function startRotation(
  deps: WebAuthnDeps,
  session: Session,
  passport: PassportIdentity,
  credentialId: string | undefined,
): Promise<StartRotationOutcome> {
  const rotated = credentialId ?? (session.credential.type === 'passkey' ? session.credential.id : undefined);
  if (!rotated)
    return {
      ok: false,
      code: 'passkey_not_rotatable',
      detail: 'This session was not signed in with a passkey: name the passkey to rotate in credentialId',
    };
  const passkey = await findPasskey(deps.db, rotated);
  if (passkey?.passport_id !== passport.passport_id || passkey.status !== 'active') {
    return {
      ok: false,
      code: 'passkey_not_rotatable',
      detail: `No active passkey ${rotated} on Passport ${passport.passport_id}`,
    };
  }
  const existing = await activePasskeysOf(deps.db, passport.passport_id);
  const options = await creationOptions(
    deps,
    { passport_id: passport.passport_id, user_name: passport.name, display_name: passport.name },
    existing,
  );
  const challenge = await issueChallenge(deps, {
    challenge: options.challenge,
    ceremony: 'rotation',
    organization_id: passport.organization_id,
    passport_id: passport.passport_id,
    user_name: passport.name,
    display_name: passport.name,
    rotates_credential_id: rotated,
  });
  return {
    ok: true,
    options,
    passport_id: passport.passport_id,
    expires_at: challenge.expires_at,
    rotates_credential_id: rotated,
  };
}

export type RotationOutcome =
  | { ok: true; passkey: PasskeyRow; revoked_credential_id: string; signedIn: SignedIn }
  | CeremonyFailure
  | RotationRefusal;

type RotationRefusal =
  | { ok: false; code: 'credential_exists'; detail: string }
  | { ok: false; code: 'passkey_not_rotatable'; detail: string };

class RotationRefused extends Error {
  constructor(readonly outcome: RotationRefusal) {
    super(outcome.detail);
  }
}

/**
 * The new passkey replaces the old in one transaction: the old is revoked at once, so every session signed
 * in with it ends, with every delegation exchanged from one; the caller gets a session with the new one.
 */
export async function completeRotation(
  deps: WebAuthnDeps,
  passport: PassportIdentity,
  body: { challenge: string; response: RegistrationResponseJSON },
): Promise<RotationOutcome> {
  const taken = await takeChallenge(deps, body.response.response.clientDataJSON, {
    ceremony: 'rotation',
    passport_id: passport.passport_id,
    challenge: body.challenge,
  });
  if (!taken.ok) return taken;
  const verified = await verifyNewPasskey(deps.settings.webauthn, body.response, taken.challenge.challenge);
  if (!verified.ok) return verified;
  const oldId = taken.challenge.rotates_credential_id!;
  let passkey: PasskeyRow;
  try {
    let delegations: RevocationRow[];
    ({ passkey, delegations } = await deps.db.transaction(async (trx) => {
      const inserted = await insertPasskey(trx, { ...verified.passkey, passport_id: passport.passport_id });
      if (!inserted)
        throw new RotationRefused({
          ok: false,
          code: 'credential_exists',
          detail: 'This passkey is already registered',
        });
      if (!(await revokePasskey(trx, oldId, 'rotated', inserted.credential_id))) {
        throw new RotationRefused({
          ok: false,
          code: 'passkey_not_rotatable',
          detail: `The passkey ${oldId} is no longer active`,
        });
      }
      const revoked = await revokeDelegationsOfCredential(
        trx,
        { type: 'passkey', id: oldId },
        { revoked_by: passport.did, reason: 'passkey rotated', at: new Date() },
      );
      return { passkey: inserted, delegations: revoked };
    }));
    applyCredentialRevocations(deps.revocations, delegations);
  } catch (error) {
    if (error instanceof RotationRefused) return error.outcome;
    throw error;
  }
  const signedIn = await signInWithPasskey(deps, passport, passkey.credential_id);
  deps.logger.info('passkey rotated', {
    passport_id: passport.passport_id,
    credential_id: passkey.credential_id,
    revoked_credential_id: oldId,
  });
  return { ok: true, passkey, revoked_credential_id: oldId, signedIn };
}
