import { createHash, randomBytes } from 'node:crypto';

/** The prefixes that tell the kind of an opaque secret at a glance (and to authenticateBearer). */
export const PAT_PREFIX = 'hnd_pat_';
export const CLIENT_SECRET_PREFIX = 'hnd_sk_';
export const AGENT_KEY_PREFIX = 'hnd_ak_';
/** The JOSE `typ` of an RFC 9068 access token. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Secrets are stored only as their SHA-256 (their entropy makes a slow hash unnecessary). */
export const sha256 = (text: string) => createHash('sha256').update(text).digest();
export const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
