import { verify } from 'node:crypto';
import { publicKeyObject, type NoteSigner, type NoteVerifier } from './signed-note';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * RFC 7515 compact JWS with EdDSA (RFC 8037) over Ed25519, signed with the log's key, so any JOSE
 * library verifies it with the key published at /v1/ledger/key (as an OKP JWK: crv Ed25519, x = key).
 */
export function signCompactJws(payload: string, header: { typ: string; kid: string }, signer: NoteSigner): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'EdDSA', ...header }))}.${base64url(payload)}`;
  return `${signingInput}.${base64url(signer.sign(signingInput))}`;
}

/** The payload of a compact EdDSA JWS signed by this key, or undefined when the signature does not hold. */
export function openCompactJws(
  jws: string,
  verifier: NoteVerifier,
): { header: Record<string, unknown>; payload: string } | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  let parsedHeader: Record<string, unknown>;
  try {
    parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (parsedHeader.alg !== 'EdDSA') return undefined;
  if (
    !verify(
      null,
      Buffer.from(`${header}.${payload}`),
      publicKeyObject(verifier.publicKey),
      Buffer.from(signature, 'base64url'),
    )
  )
    return undefined;
  return { header: parsedHeader, payload: Buffer.from(payload, 'base64url').toString('utf8') };
}
