import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import {
  findPassportIdentity,
  findPasskey,
  lockPasskey,
  recordPasskeyUse,
  revokePasskey,
  type PasskeyRow,
  type PassportIdentity,
} from '../../../db/webauthn';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';
import { decideSignatureCounter } from '../../../domain/identity/passkeys';
import { applyCredentialRevocations, revokeDelegationsOfCredential } from '../delegations/credential-revocations';
import {
  issueChallenge,
  knownTransports,
  signInWithPasskey,
  takeChallenge,
  type CeremonyFailure,
  type SignedIn,
  type WebAuthnDeps,
} from './ceremony';

/** Sign-in options for a discoverable passkey: the browser offers the person's passkeys for this RP, no account named first. */
export async function startAuthentication(
  deps: WebAuthnDeps,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; expires_at: Date }> {
  const { webauthn } = deps.settings;
  const options = await generateAuthenticationOptions({
    rpID: webauthn.rpId,
    userVerification: 'required',
    timeout: webauthn.challengeTtlSeconds * 1000,
  });
  const challenge = await issueChallenge(deps, {
    challenge: options.challenge,
    ceremony: 'authentication',
    organization_id: null,
    passport_id: null,
    user_name: null,
    display_name: null,
    rotates_credential_id: null,
  });
  return { options, expires_at: challenge.expires_at };
}

export type AuthenticationOutcome =
  | { ok: true; passport: PassportIdentity; credential_id: string; signedIn: SignedIn }
  | CeremonyFailure
  | {
      ok: false;
      code: 'passkey_unknown' | 'passkey_revoked' | 'passport_inactive' | 'counter_regression';
      detail: string;
    };

/** The signature counter the assertion presents, once its signature verifies against the passkey. */
async function verifiedCounter(
  deps: WebAuthnDeps,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  passkey: PasskeyRow,
): Promise<{ ok: true; counter: number } | { ok: false; code: 'verification_failed'; detail: string }> {
  const { webauthn } = deps.settings;
  try {
    // Counter 0 here: judgeCounter judges it under a row lock, so that two sign-ins at once are judged in turn.
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: webauthn.origins,
      expectedRPID: webauthn.rpId,
      credential: {
        id: passkey.credential_id,
        publicKey: Buffer.from(passkey.public_key, 'base64url'),
        counter: 0,
        transports: knownTransports(passkey.transports),
      },
      requireUserVerification: true,
    });
    if (!verification.verified)
      return { ok: false, code: 'verification_failed', detail: 'The assertion signature did not verify' };
    return { ok: true, counter: verification.authenticationInfo.newCounter };
  } catch (error) {
    return { ok: false, code: 'verification_failed', detail: (error as Error).message };
  }
}

/**
 * Verifies an assertion and signs the person in. A signature counter that does not grow means the passkey
 * has been copied: the passkey is revoked at once (every session signed in with it ends, with every delegation
 * exchanged from one) and the sign-in refused.
 */
export async function authenticate(
  deps: WebAuthnDeps,
  response: AuthenticationResponseJSON,
): Promise<AuthenticationOutcome> {
  const taken = await takeChallenge(deps, response.response.clientDataJSON, { ceremony: 'authentication' });
  if (!taken.ok) return taken;
  const passkey = await findPasskey(deps.db, response.id);
  if (!passkey)
    return { ok: false, code: 'passkey_unknown', detail: 'No passkey with this credential id is registered here' };
  if (passkey.status !== 'active')
    return {
      ok: false,
      code: 'passkey_revoked',
      detail: `This passkey was revoked (${passkey.revoke_reason ?? 'revoked'})`,
    };
  const userHandle = response.response.userHandle;
  if (userHandle !== undefined && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.passport_id) {
    return { ok: false, code: 'verification_failed', detail: 'The user handle does not belong to this passkey' };
  }
  const passport = await findPassportIdentity(deps.db, passkey.passport_id);
  if (passport?.status !== 'active')
    return { ok: false, code: 'passport_inactive', detail: 'The Passport of this passkey is not active' };

  const presented = await verifiedCounter(deps, response, taken.challenge.challenge, passkey);
  if (!presented.ok) return presented;

  const judged = await judgeCounter(deps, passkey.credential_id, presented.counter);
  if (!judged.ok) {
    if (judged.code !== 'counter_regression') return judged;
    deps.logger.warn('passkey revoked: signature counter went back (cloned authenticator)', {
      passport_id: passport.passport_id,
      credential_id: passkey.credential_id,
      delegations_revoked: judged.delegations_revoked,
    });
    return { ok: false, code: judged.code, detail: judged.detail };
  }
  const signedIn = await signInWithPasskey(deps, passport, passkey.credential_id);
  deps.logger.info('signed in with a passkey', {
    passport_id: passport.passport_id,
    credential_id: passkey.credential_id,
    session_id: signedIn.session.session_id,
  });
  return { ok: true, passport, credential_id: passkey.credential_id, signedIn };
}

type CounterJudgement =
  | { ok: true }
  | { ok: false; code: 'passkey_revoked'; detail: string }
  | { ok: false; code: 'counter_regression'; detail: string; delegations_revoked: number };

/**
 * Judges the presented signature counter under a row lock, so that two sign-ins at once are judged in turn.
 * A counter that went back revokes the passkey and, in the same transaction, every delegation it signed.
 */
async function judgeCounter(
  deps: WebAuthnDeps,
  credentialId: string,
  presentedCounter: number,
): Promise<CounterJudgement> {
  const judged = await deps.db.transaction(async (trx) => {
    const locked = await lockPasskey(trx, credentialId);
    if (locked?.status !== 'active')
      return {
        ok: false as const,
        code: 'passkey_revoked' as const,
        detail: 'This passkey was revoked while signing in',
      };
    const decision = decideSignatureCounter(locked.counter, presentedCounter);
    if (!decision.ok) {
      await revokePasskey(trx, credentialId, 'counter_regression');
      const cause = {
        revoked_by: ORCH_CORE_DID,
        reason: 'passkey cloned: signature counter regression',
        at: new Date(),
      };
      return {
        ok: false as const,
        code: 'counter_regression' as const,
        detail: `The signature counter went from ${decision.stored} to ${decision.presented}: this passkey looks cloned and has been revoked`,
        delegations: await revokeDelegationsOfCredential(trx, { type: 'passkey', id: credentialId }, cause),
      };
    }
    await recordPasskeyUse(trx, credentialId, decision.counter);
    return { ok: true as const };
  });
  if (judged.ok || judged.code === 'passkey_revoked') return judged;
  applyCredentialRevocations(deps.revocations, judged.delegations);
  return { ok: false, code: judged.code, detail: judged.detail, delegations_revoked: judged.delegations.length };
}
