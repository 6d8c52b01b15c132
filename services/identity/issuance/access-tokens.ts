import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Knex } from 'knex';
import {
  insertApiToken,
  insertServiceAccount,
  markApiTokenRevoked,
  markServiceAccountRevoked,
  type ApiTokenSummary,
} from '../../../db/credentials';
import type { TokenSettings } from '../authentication/actor';
import { scopesNotHeld, type Principal } from '../scopes';
import { SIGNING_ALGORITHM, type KeyRing } from './key-ring';
import { ACCESS_TOKEN_TYPE, AGENT_KEY_PREFIX, CLIENT_SECRET_PREFIX, PAT_PREFIX, secret, sha256 } from './secrets';

/** An RFC 9068 access token signed with the deployment's current key. */
export async function issueAccessToken(
  keyRing: KeyRing,
  settings: TokenSettings,
  claims: { subject: string; scopes: readonly string[]; clientId?: string; organizationId: string; ttlSeconds: number },
): Promise<string> {
  const { kid, privateKey } = await keyRing.signingKey();
  return new SignJWT({
    scope: claims.scopes.join(' '),
    org: claims.organizationId,
    ...(claims.clientId ? { client_id: claims.clientId } : {}),
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.subject)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSeconds}s`)
    .setJti(randomUUID())
    .sign(privateKey);
}

/** Random, shown once, stored only as its SHA-256 (the token's entropy makes a slow hash unnecessary). */
export async function mintPersonalAccessToken(
  db: Knex,
  options: {
    name: string;
    scopes: string[];
    organizationId: string;
    expiresAt?: Date | null;
    createdBy?: string | null;
  },
): Promise<{ token: string; token_id: string; row: ApiTokenSummary }> {
  const token = secret(PAT_PREFIX);
  const token_id = `pat_${randomUUID()}`;
  const row = await insertApiToken(db, {
    token_id,
    name: options.name,
    token_hash: sha256(token).toString('hex'),
    scopes: options.scopes,
    organization_id: options.organizationId,
    created_by: options.createdBy ?? null,
    expires_at: options.expiresAt ?? null,
  });
  return { token, token_id, row };
}

export type CreatePersonalAccessTokenOutcome =
  | { ok: true; token: string; row: ApiTokenSummary }
  /** The creator asked to grant scopes its own token does not hold (listed in the order asked). */
  | { ok: false; code: 'scopes_not_held'; scopes: string[] };

/** A personal access token in the creator's organization with some of the creator's scopes, as a service account is made. */
export async function createPersonalAccessToken(
  db: Knex,
  creator: Principal,
  options: { name: string; scopes: string[]; expiresAt: Date | null },
): Promise<CreatePersonalAccessTokenOutcome> {
  const notHeld = scopesNotHeld(creator.scopes, options.scopes);
  if (notHeld.length > 0) return { ok: false, code: 'scopes_not_held', scopes: notHeld };
  const { token, row } = await mintPersonalAccessToken(db, {
    ...options,
    organizationId: creator.organization_id,
    createdBy: creator.id,
  });
  return { ok: true, token, row };
}

/** Revokes a personal access token: authenticateBearer reads its row on every request, so it stops at once. Revoking again changes nothing. */
export async function revokePersonalAccessToken(
  db: Knex,
  organizationId: string,
  tokenId: string,
): Promise<{ ok: true; revoked_at: Date } | { ok: false; code: 'not_found' }> {
  const revoked = await markApiTokenRevoked(db, organizationId, tokenId);
  return revoked ? { ok: true, revoked_at: revoked.revoked_at } : { ok: false, code: 'not_found' };
}

export type CreateServiceAccountOutcome =
  | { ok: true; client_id: string; client_secret: string }
  /** The creator asked to grant scopes its own token does not hold (listed in the order asked). */
  | { ok: false; code: 'scopes_not_held'; scopes: string[] };

/**
 * A service account in the creator's organization with some of the creator's scopes: never more than the
 * creator holds, or it could grant itself anything.
 */
export async function createServiceAccount(
  db: Knex,
  creator: Principal,
  options: { name: string; scopes: string[] },
): Promise<CreateServiceAccountOutcome> {
  const notHeld = scopesNotHeld(creator.scopes, options.scopes);
  if (notHeld.length > 0) return { ok: false, code: 'scopes_not_held', scopes: notHeld };
  const client_id = `sa_${randomBytes(12).toString('base64url')}`;
  const client_secret = secret(CLIENT_SECRET_PREFIX);
  await insertServiceAccount(db, {
    client_id,
    name: options.name,
    secret_hash: sha256(client_secret).toString('hex'),
    scopes: options.scopes,
    organization_id: creator.organization_id,
  });
  return { ok: true, client_id, client_secret };
}

/**
 * Revokes a service account: its secret stops obtaining tokens and the tokens it holds stop authenticating
 * (authenticateBearer reads the account on every request). Revoking again changes nothing.
 */
export async function revokeServiceAccount(
  db: Knex,
  organizationId: string,
  clientId: string,
): Promise<{ ok: true; revoked_at: Date } | { ok: false; code: 'not_found' }> {
  const revoked = await markServiceAccountRevoked(db, organizationId, clientId);
  return revoked ? { ok: true, revoked_at: revoked.revoked_at } : { ok: false, code: 'not_found' };
}

/** A registered agent's API key: random, shown once, stored only as its SHA-256 like the other secrets. */
export function mintAgentKey(): { api_key: string; api_key_hash: string } {
  const api_key = secret(AGENT_KEY_PREFIX);
  return { api_key, api_key_hash: sha256(api_key).toString('hex') };
}
