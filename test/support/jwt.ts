import { generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { tokenIssuer } from '../../app/config';
import { createKeyRing } from '../../services/identity/issuance/key-ring';
import type { Stack } from './stack';

export interface JwtOptions {
  key: KeyLike | Uint8Array;
  kid?: string;
  alg?: string;
  typ?: string;
  issuer: string;
  audience: string;
  subject?: string;
  scope?: string;
  /** Seconds since the epoch; null leaves exp out. */
  expiresAt?: number | null;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A JWT built claim by claim, so a test can get exactly one thing wrong. */
export function signJwt(options: JwtOptions): Promise<string> {
  const jwt = new SignJWT({ scope: options.scope ?? 'orch:read' })
    .setProtectedHeader({
      alg: options.alg ?? 'EdDSA',
      typ: options.typ ?? 'at+jwt',
      ...(options.kid ? { kid: options.kid } : {}),
    })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.subject ?? 'forger')
    .setIssuedAt();
  const expiresAt = options.expiresAt === undefined ? nowSeconds() + 600 : options.expiresAt;
  if (expiresAt !== null) jwt.setExpirationTime(expiresAt);
  return jwt.sign(options.key);
}

/** What a token needs to pass as one of this stack's: its current signing key, issuer and audience. */
export async function deploymentSigning(
  stack: Stack,
): Promise<{ key: KeyLike | Uint8Array; kid: string; issuer: string; audience: string }> {
  const { kid, privateKey } = await createKeyRing(stack.database.db).signingKey();
  return { key: privateKey, kid, issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE };
}

export async function foreignEd25519Key(): Promise<KeyLike> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return privateKey;
}

export { nowSeconds };
