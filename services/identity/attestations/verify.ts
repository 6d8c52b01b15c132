import { createPublicKey, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { ATTESTATION_TOKEN_TYPE } from './issue';

/** An attestation as GET /v1/passports/{passport_id}/attestations/{attestation_id} answers it. */
export interface PassportAttestationDocument {
  attestationId: string;
  skill: string;
  issuer: string;
  timestamp: string;
  subject: string;
  proof: string;
}

export interface AttestationReport {
  ok: boolean;
  verified: string[];
  problems: string[];
}

/** The issuer's key the proof names, from either shape of its DID document: DID Core (JWK) or the spec's (PEM). */
function keyOfDocument(document: Record<string, unknown>, methodId: string): KeyObject | undefined {
  const core = Array.isArray(document.verificationMethod) ? (document.verificationMethod as unknown[]) : [];
  const spec = Array.isArray(document.publicKey) ? (document.publicKey as unknown[]) : [];
  for (const entry of [...core, ...spec]) {
    const method = entry as { id?: unknown; publicKeyJwk?: unknown; publicKeyPem?: unknown };
    if (method.id !== methodId) continue;
    if (typeof method.publicKeyPem === 'string') return createPublicKey(method.publicKeyPem);
    const jwk = method.publicKeyJwk as { kty?: unknown; crv?: unknown; x?: unknown } | undefined;
    if (jwk?.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string')
      return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  }
  return undefined;
}

/**
 * Checks an attestation offline, with nothing but the issuer's DID document (GET /passports/{id}/did.json or
 * GET /v1/passports/{id}/did): the document is the issuer's, it lists the key the proof names, the proof is an
 * EdDSA attestation+jwt by that key, unexpired at `now`, and its claims are the attestation's fields.
 */
export async function verifyPassportAttestation(
  attestation: PassportAttestationDocument,
  didDocument: Record<string, unknown>,
  now: Date = new Date(),
): Promise<AttestationReport> {
  const problems: string[] = [];
  const verified: string[] = [];
  if (didDocument.id !== attestation.issuer)
    return {
      ok: false,
      verified,
      problems: [`The DID document is ${String(didDocument.id)}’s, not the issuer ${attestation.issuer}’s`],
    };
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(attestation.proof).kid;
  } catch {
    return { ok: false, verified, problems: ['The proof is not a compact JWS'] };
  }
  if (!kid) return { ok: false, verified, problems: ['The proof names no key (kid)'] };
  const key = keyOfDocument(didDocument, `${attestation.issuer}#${kid}`);
  if (!key) return { ok: false, verified, problems: [`The issuer’s DID document lists no key ${kid}`] };
  verified.push(`the issuer’s DID document lists the key ${kid}`);
  try {
    const { payload } = await jwtVerify(attestation.proof, key, {
      algorithms: ['EdDSA'],
      typ: ATTESTATION_TOKEN_TYPE,
      issuer: attestation.issuer,
      currentDate: now,
    });
    verified.push(`the proof is signed by ${attestation.issuer}#${kid} and unexpired`);
    const expected = {
      jti: attestation.attestationId,
      sub: attestation.subject,
      skill: attestation.skill,
      iat: Math.floor(Date.parse(attestation.timestamp) / 1000),
    };
    for (const [claim, value] of Object.entries(expected)) {
      if (payload[claim] === value) continue;
      problems.push(`The proof’s ${claim} is ${String(payload[claim])}, the attestation says ${String(value)}`);
    }
    if (problems.length === 0)
      verified.push(`it attests ${attestation.skill} of ${attestation.subject} at ${attestation.timestamp}`);
  } catch (error) {
    if (!(error instanceof joseErrors.JOSEError)) throw error;
    problems.push(`The proof does not verify (${error.code})`);
  }
  return { ok: problems.length === 0, verified, problems };
}
