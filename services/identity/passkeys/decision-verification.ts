import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../../../domain/common/canonical-json';
import {
  canonicalDecision,
  DECISION_FORMAT,
  DECISION_SIGNATURE_FORMAT,
  type DecisionSignature,
  type SignedDecision,
} from '../../../domain/identity/decision-signatures';

/*
 * The offline check of a decision signed by a passkey (docs/decision-signatures.md): with the envelope and
 * the signer's DID document only, that this passkey approved exactly this decision. The API runs the same
 * check before it takes a signed answer, so whatever it accepted verifies offline.
 */

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const AUTHENTICATOR_DATA_MIN_BYTES = 37;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

/** The WebAuthn challenge of a decision: base64url of the SHA-256 of its canonical JSON. */
export function decisionChallenge(decision: SignedDecision): string {
  return sha256(Buffer.from(canonicalDecision(decision), 'utf8')).toString('base64url');
}

/** Hex SHA-256 of a comment's UTF-8 bytes, as the signed decision names it. */
export function commentSha256(comment: string | undefined): string | null {
  return comment === undefined || comment === '' ? null : sha256(Buffer.from(comment, 'utf8')).toString('hex');
}

const text = z.string().min(1);

/** The envelope's shape, for one read from a file or a ledger record: anything else is not a decision signature. */
export const DecisionSignatureShape = z.object({
  format: z.literal(DECISION_SIGNATURE_FORMAT),
  decision: z.object({
    format: z.literal(DECISION_FORMAT),
    item_id: text,
    decision: text,
    modified_parameters: z.record(z.string(), z.unknown()).nullable(),
    comment_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    nonce: text,
  }),
  signer: z.object({ did: text, verification_method: text, credential_id: text }),
  rp_id: text,
  assertion: z.object({ authenticator_data: text, client_data_json: text, signature: text }),
}) satisfies z.ZodType<DecisionSignature>;

interface VerificationMethod {
  id?: unknown;
  controller?: unknown;
  publicKeyJwk?: JsonWebKey & { alg?: string };
}

/** The verification method the signer names, when the DID document is the signer's and lists it for authentication. */
function methodOf(
  envelope: DecisionSignature,
  document: { id?: unknown; verificationMethod?: unknown; authentication?: unknown },
): VerificationMethod | string {
  if (document.id !== envelope.signer.did)
    return `the DID document is ${String(document.id)}'s, not the signer's (${envelope.signer.did})`;
  const methods = Array.isArray(document.verificationMethod)
    ? (document.verificationMethod as VerificationMethod[])
    : [];
  const method = methods.find((candidate) => candidate.id === envelope.signer.verification_method);
  if (!method?.publicKeyJwk) return `the DID document has no key ${envelope.signer.verification_method}`;
  const authentication = Array.isArray(document.authentication) ? (document.authentication as unknown[]) : [];
  if (!authentication.includes(method.id))
    return `the DID document does not list ${String(method.id)} for authentication`;
  return method;
}

function signatureVerifies(jwk: JsonWebKey & { alg?: string }, signed: Buffer, signature: Buffer): boolean {
  const { alg, ...keyMembers } = jwk;
  const key = createPublicKey({ key: keyMembers, format: 'jwk' });
  if (alg === 'EdDSA' || jwk.kty === 'OKP') return verify(null, signed, key, signature);
  const hash = { ES384: 'sha384', ES512: 'sha512' }[alg ?? ''] ?? 'sha256';
  return verify(hash, signed, jwk.kty === 'EC' ? { key, dsaEncoding: 'der' } : key, signature);
}

function clientDataProblems(envelope: DecisionSignature, clientDataJson: Buffer): string[] {
  let clientData: { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
  try {
    clientData = JSON.parse(clientDataJson.toString('utf8')) as typeof clientData;
  } catch {
    return ['client_data_json is not JSON'];
  }
  const problems: string[] = [];
  if (clientData.type !== 'webauthn.get')
    problems.push(`client data type is ${String(clientData.type)}, not webauthn.get`);
  if (clientData.challenge !== decisionChallenge(envelope.decision))
    problems.push('the passkey signed another challenge than this decision’s hash');
  if (clientData.crossOrigin === true) problems.push('the passkey signed in a cross-origin frame');
  let host = '';
  try {
    host = new URL(String(clientData.origin)).hostname;
  } catch {
    problems.push(`client data origin ${String(clientData.origin)} is not a URL`);
  }
  if (host && host !== envelope.rp_id && !host.endsWith(`.${envelope.rp_id}`))
    problems.push(`the origin ${String(clientData.origin)} is not of the relying party ${envelope.rp_id}`);
  return problems;
}

function authenticatorDataProblems(envelope: DecisionSignature, authenticatorData: Buffer): string[] {
  if (authenticatorData.length < AUTHENTICATOR_DATA_MIN_BYTES) return ['authenticator_data is too short'];
  const problems: string[] = [];
  if (!authenticatorData.subarray(0, 32).equals(sha256(envelope.rp_id)))
    problems.push(`authenticator_data is not for the relying party ${envelope.rp_id}`);
  const flags = authenticatorData[32] ?? 0;
  if ((flags & FLAG_USER_PRESENT) === 0) problems.push('the person was not present (UP flag unset)');
  if ((flags & FLAG_USER_VERIFIED) === 0) problems.push('the person was not verified (UV flag unset)');
  return problems;
}

export interface DecisionCheck {
  ok: boolean;
  verified: string[];
  problems: string[];
}

/**
 * Whether the envelope's passkey signed exactly its decision: the formats, the client data (a get
 * ceremony, the decision's hash as challenge, an origin of the relying party), the authenticator data (the
 * relying party's hash, user present and verified) and the signature over authenticatorData ‖ SHA-256(clientDataJSON)
 * with the key the signer's DID document publishes.
 */
export function verifyDecisionSignature(envelope: DecisionSignature, didDocument: object): DecisionCheck {
  const method = methodOf(envelope, didDocument);
  if (typeof method === 'string') return { ok: false, verified: [], problems: [method] };
  const clientDataJson = Buffer.from(envelope.assertion.client_data_json, 'base64url');
  const authenticatorData = Buffer.from(envelope.assertion.authenticator_data, 'base64url');
  const problems = [
    ...clientDataProblems(envelope, clientDataJson),
    ...authenticatorDataProblems(envelope, authenticatorData),
  ];
  let signed = false;
  try {
    signed = signatureVerifies(
      method.publicKeyJwk!,
      Buffer.concat([authenticatorData, sha256(clientDataJson)]),
      Buffer.from(envelope.assertion.signature, 'base64url'),
    );
  } catch (error) {
    problems.push(`the key or signature cannot be read: ${(error as Error).message}`);
  }
  if (!signed) problems.push(`the signature does not verify with ${envelope.signer.verification_method}`);
  const { decision } = envelope;
  const verified =
    problems.length === 0
      ? [
          `${envelope.signer.did} (${envelope.signer.verification_method}) signed: ${decision.decision} ${decision.item_id}`,
        ]
      : [];
  return { ok: problems.length === 0, verified, problems };
}

/** Whether two envelopes are the same, member for member (a record's copy against the one given). */
export function sameEnvelope(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export const DECISION_BUNDLE_FORMAT = 'handoff.decision-signature-bundle/v1';

/** A decision signature with what checks it: the signer's DID document, the comment it hashes, its ledger record. */
export interface DecisionBundle {
  format: typeof DECISION_BUNDLE_FORMAT;
  signature: DecisionSignature;
  did_document: object;
  comment: string | null;
  ledger_record: { transaction_id: string; leaf_hash: string; body: string };
}

function ledgerRecordProblems(bundle: DecisionBundle): string[] {
  const { body, leaf_hash } = bundle.ledger_record;
  const problems: string[] = [];
  // RFC 6962's leaf hash: SHA-256 of 0x00 and the record's canonical body.
  if (sha256(Buffer.concat([Buffer.from([0]), Buffer.from(body, 'utf8')])).toString('hex') !== leaf_hash)
    problems.push('the ledger record’s body does not hash to its leaf hash');
  let entry: { subject_id?: unknown; actor?: { decision_signature?: unknown } };
  try {
    entry = JSON.parse(body) as typeof entry;
  } catch {
    return [...problems, 'the ledger record’s body is not JSON'];
  }
  if (entry.subject_id !== bundle.signature.decision.item_id)
    problems.push(`the ledger record is ${String(entry.subject_id)}'s, not ${bundle.signature.decision.item_id}'s`);
  if (!sameEnvelope(entry.actor?.decision_signature ?? null, bundle.signature))
    problems.push('the ledger record does not carry this signature');
  return problems;
}

/**
 * A bundle (GET /v1/inbox/items/{item_id}/signature): the signature against the DID document, the comment
 * against its hash, and the ledger record (whose leaf hash an inclusion proof ties to a signed checkpoint).
 */
export function verifyDecisionBundle(value: unknown): DecisionCheck {
  const bundle = value as Partial<DecisionBundle>;
  const parsed = DecisionSignatureShape.safeParse(bundle.signature);
  if (!parsed.success || typeof bundle.did_document !== 'object' || !bundle.ledger_record)
    return { ok: false, verified: [], problems: [`not a complete ${DECISION_BUNDLE_FORMAT}`] };
  const whole = { ...(bundle as DecisionBundle), signature: parsed.data };
  const check = verifyDecisionSignature(parsed.data, bundle.did_document);
  const problems = [...check.problems, ...ledgerRecordProblems(whole)];
  if (commentSha256(bundle.comment ?? undefined) !== parsed.data.decision.comment_sha256)
    problems.push('the comment does not hash to the signed comment_sha256');
  const verified =
    problems.length === 0
      ? [
          ...check.verified,
          `the comment matches its hash`,
          `ledger record ${whole.ledger_record.transaction_id} carries the signature`,
        ]
      : [];
  return { ok: problems.length === 0, verified, problems };
}
