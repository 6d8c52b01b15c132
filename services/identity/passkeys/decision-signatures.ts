import { randomBytes } from 'node:crypto';
import { consumeChallenge, findPasskey } from '../../../db/webauthn';
import {
  DECISION_SIGNATURE_FORMAT,
  passkeyMethodId,
  signedDecision,
  type DecisionAssertion,
  type DecisionSignature,
  type SignedDecision,
} from '../../../domain/identity/decision-signatures';
import type { HumanActor } from '../../../domain/identity/human-acts';
import { issueChallenge, type WebAuthnDeps } from './ceremony';
import { verifyDecisionSignature } from './decision-verification';
import { passkeyJwk } from './passkey-jwk';

export type DecisionSignatureDeps = Pick<WebAuthnDeps, 'db' | 'settings'>;

/** What the browser sends with a signed answer: the nonce it signed over and the passkey's assertion. */
export interface SubmittedSignature extends DecisionAssertion {
  nonce: string;
  credential_id: string;
}

const NONCE_BYTES = 32;

/** A single-use nonce for the signed-in person's next decision, live as long as a WebAuthn challenge. */
export async function issueDecisionNonce(
  deps: DecisionSignatureDeps,
  person: { passport_id: string; organization_id: string },
): Promise<{ nonce: string; expires_at: Date; rp_id: string }> {
  const nonce = randomBytes(NONCE_BYTES).toString('base64url');
  const issued = await issueChallenge(deps, {
    challenge: nonce,
    ceremony: 'decision',
    organization_id: person.organization_id,
    passport_id: person.passport_id,
    user_name: null,
    display_name: null,
    rotates_credential_id: null,
  });
  return { nonce, expires_at: issued.expires_at, rp_id: deps.settings.webauthn.rpId };
}

export type SignatureOutcome =
  | { ok: true; signature: DecisionSignature }
  | { ok: false; code: 'decision_signature_invalid' | 'decision_nonce_invalid'; detail: string };

function originProblem(deps: DecisionSignatureDeps, clientDataJson: string): string | undefined {
  try {
    const { origin } = JSON.parse(Buffer.from(clientDataJson, 'base64url').toString('utf8')) as { origin?: unknown };
    if (deps.settings.webauthn.origins.includes(String(origin))) return undefined;
    return `the passkey signed on ${String(origin)}, which is no origin of this service`;
  } catch {
    return 'client_data_json is not base64url of JSON';
  }
}

/**
 * Checks the person's passkey signature over exactly the decision they send, then takes the nonce it
 * signed (so it answers once): the passkey must be an active one of the acting person's Passport, and the
 * signature must verify as a third party would verify it, with the key their DID document publishes.
 */
export async function acceptDecisionSignature(
  deps: DecisionSignatureDeps,
  actor: Pick<HumanActor, 'passport_id' | 'did'>,
  decided: Omit<SignedDecision, 'format' | 'nonce'>,
  submitted: SubmittedSignature,
): Promise<SignatureOutcome> {
  const refuse = (detail: string): SignatureOutcome => ({ ok: false, code: 'decision_signature_invalid', detail });
  const passkey = await findPasskey(deps.db, submitted.credential_id);
  if (passkey?.passport_id !== actor.passport_id || passkey.status !== 'active')
    return refuse('The signing passkey is not an active passkey of the signed-in person');
  const jwk = passkeyJwk(passkey.public_key);
  if (!jwk)
    return refuse('The passkey’s key type cannot be published in a DID document, so its signature cannot be checked');
  const verification_method = passkeyMethodId(actor.did, passkey.credential_id);
  const signature: DecisionSignature = {
    format: DECISION_SIGNATURE_FORMAT,
    decision: signedDecision({ ...decided, nonce: submitted.nonce }),
    signer: { did: actor.did, verification_method, credential_id: passkey.credential_id },
    rp_id: deps.settings.webauthn.rpId,
    assertion: {
      authenticator_data: submitted.authenticator_data,
      client_data_json: submitted.client_data_json,
      signature: submitted.signature,
    },
  };
  const document = {
    id: actor.did,
    verificationMethod: [{ id: verification_method, controller: actor.did, publicKeyJwk: jwk }],
    authentication: [verification_method],
  };
  const check = verifyDecisionSignature(signature, document);
  const problems = [...check.problems, originProblem(deps, submitted.client_data_json) ?? []].flat();
  if (problems.length > 0) return refuse(`The decision’s passkey signature does not verify: ${problems.join('; ')}`);
  // One conditional delete: of two answers carrying the same nonce, only one takes it.
  const nonce = await consumeChallenge(deps.db, {
    challenge: submitted.nonce,
    ceremony: 'decision',
    passport_id: actor.passport_id,
  });
  if (!nonce?.live)
    return {
      ok: false,
      code: 'decision_nonce_invalid',
      detail: nonce
        ? 'The decision’s nonce expired; ask for a new one and sign again'
        : 'The decision’s nonce was not issued to the signed-in person, or has been used already',
    };
  return { ok: true, signature };
}
