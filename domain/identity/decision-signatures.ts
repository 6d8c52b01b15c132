/**
 * A decision signed by a reviewer's passkey (docs/decision-signatures.md): the canonical decision whose
 * SHA-256 is the WebAuthn challenge, and the envelope that carries the assertion into the answer and its
 * ledger record. Pure: hashing and signature checks are the caller's.
 */
import { canonicalJson } from '../common/canonical-json';

export const DECISION_FORMAT = 'handoff.decision/v1';
export const DECISION_SIGNATURE_FORMAT = 'handoff.decision-signature/v1';

/** What a passkey signs: the item, the decision, the parameters it changes, the comment's hash and a server nonce. */
export interface SignedDecision {
  format: typeof DECISION_FORMAT;
  /** The approval request (apr_…) or routing (rt_…) decided. */
  item_id: string;
  decision: string;
  /** With an approval that changes them: the parameters to use instead; null otherwise. */
  modified_parameters: Record<string, unknown> | null;
  /** Hex SHA-256 of the comment's UTF-8 bytes; null without a comment. */
  comment_sha256: string | null;
  /** Issued to the signed-in person by POST /v1/inbox/decision-nonces; it answers once. */
  nonce: string;
}

/** The assertion as the browser's PublicKeyCredential gives it, each part base64url. */
export interface DecisionAssertion {
  authenticator_data: string;
  client_data_json: string;
  signature: string;
}

/** Stored in the answer's ledger record (its actor's decision_signature) and verified with the signer's DID document alone. */
export interface DecisionSignature {
  format: typeof DECISION_SIGNATURE_FORMAT;
  decision: SignedDecision;
  signer: { did: string; verification_method: string; credential_id: string };
  /** The relying party the passkey is bound to: authenticator_data starts with its SHA-256. */
  rp_id: string;
  assertion: DecisionAssertion;
}

export function signedDecision(facts: Omit<SignedDecision, 'format'>): SignedDecision {
  return {
    format: DECISION_FORMAT,
    item_id: facts.item_id,
    decision: facts.decision,
    modified_parameters: facts.modified_parameters,
    comment_sha256: facts.comment_sha256,
    nonce: facts.nonce,
  };
}

/** The bytes whose SHA-256 is the challenge: the decision in RFC 8785 canonical JSON, UTF-8. */
export function canonicalDecision(decision: SignedDecision): string {
  return canonicalJson(decision);
}

/** The verification method a passkey has in its Passport's DID document. */
export function passkeyMethodId(did: string, credentialId: string): string {
  return `${did}#passkey-${credentialId}`;
}
