import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { SIGNING_ALGORITHM, type KeyRing } from '../identity/issuance/key-ring';
import type { TokenSettings } from '../identity/authentication/actor';

/**
 * The credential an agent reports progress with: a JWT signed by the deployment key, sent to the agent in
 * the invocation, good for one execution and one attempt, and only for its progress endpoint (its own `typ`,
 * so it is never taken as an access token, and no access token is taken as one of these). An agent can also
 * check it against /.well-known/jwks.json to know the call came from this deployment.
 */
const PROGRESS_TOKEN_TYPE = 'progress+jwt';

export interface ProgressGrant {
  execution_id: string;
  agent_uri: string;
  attempt: number;
}

export async function issueProgressToken(
  keyRing: KeyRing,
  settings: TokenSettings,
  grant: ProgressGrant & { ttlSeconds: number },
): Promise<string> {
  const { kid, privateKey } = await keyRing.signingKey();
  return new SignJWT({ execution_id: grant.execution_id, attempt: grant.attempt })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: PROGRESS_TOKEN_TYPE, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(grant.agent_uri)
    .setIssuedAt()
    .setExpirationTime(`${grant.ttlSeconds}s`)
    .sign(privateKey);
}

export type ProgressTokenCheck = { ok: true; grant: ProgressGrant } | { ok: false; reason: string };

export async function verifyProgressToken(
  keyRing: KeyRing,
  settings: TokenSettings,
  token: string,
  executionId: string,
): Promise<ProgressTokenCheck> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return { ok: false, reason: 'The progress token is malformed' };
  }
  const key = kid ? await keyRing.verificationKey(kid) : undefined;
  if (!key) return { ok: false, reason: 'The progress token was not signed by a key of this deployment' };
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALGORITHM],
      issuer: settings.issuer,
      audience: settings.audience,
      typ: PROGRESS_TOKEN_TYPE,
      requiredClaims: ['exp', 'sub', 'execution_id', 'attempt'],
    });
    if (payload.execution_id !== executionId)
      return { ok: false, reason: 'The progress token is for another execution' };
    if (typeof payload.attempt !== 'number' || !Number.isInteger(payload.attempt))
      return { ok: false, reason: 'The progress token names no attempt' };
    return { ok: true, grant: { execution_id: executionId, agent_uri: payload.sub!, attempt: payload.attempt } };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The progress token has expired' };
    if (error instanceof joseErrors.JOSEError)
      return { ok: false, reason: `The progress token is not valid (${error.code})` };
    throw error;
  }
}
