import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Knex } from 'knex';
import { findAgentByKeyHash } from '../../../db/agents';
import {
  findApiTokenByHash,
  findServiceAccount,
  findTokenSubject,
  insertApiToken,
  insertServiceAccount,
  markApiTokenRevoked,
  markServiceAccountRevoked,
  type ApiTokenSummary,
} from '../../../db/credentials';
import { SIGNED_IN_PERSON_GRANTS } from '../../../domain/identity/capabilities';
import { DEFAULT_ORGANIZATION_ID } from '../../../domain/common/organizations';
import { authenticateSession, SESSION_TOKEN_TYPE } from '../issuance/session-tokens';
import type { Actor, TokenSettings } from './actor';
import { isPromptScope, promptScopeHeld } from '../../../domain/prompts/scopes';
import { SIGNING_ALGORITHM, type KeyRing } from '../issuance/key-ring';
import { hasExpired, type VerifiedTokenCache } from '../../../lib/verified-tokens';

export type { Actor, TokenSettings };

/**
 * orch:* guard the orchestration layer (/v1/orch), platform:* the platform API (/v1): read lists and
 * reads, write submits and answers, admin configures. Until the identity work makes platform calls carry
 * delegation tokens, platform callers hold these scopes on the same bearer tokens. orch:agent is the one
 * scope of a registered agent's API key: the agent operations (/route, /confidence, …) and nothing else.
 * cloud:admin:global (the platform spec's name) administers the deployment across organizations: it creates
 * organizations and lists all of them; it grants nothing inside another organization's resources.
 * people:enroll is the organization administrator's power to enroll a person (a person's Passport, whom
 * sessions and delegations then act as): more than platform:write, which creates agent Passports only.
 */
export const SCOPES = [
  'orch:read',
  'orch:write',
  'orch:admin',
  'audit:read',
  'platform:read',
  'platform:write',
  'platform:admin',
  'people:enroll',
  'orch:agent',
  'cloud:admin:global',
] as const;
export type Scope = (typeof SCOPES)[number];

/** An admin scope configures its layer, so it may also read and write there; audit:read stays separate. */
const IMPLIED: Record<Scope, Scope[]> = {
  'orch:read': [],
  'orch:write': ['orch:agent'],
  'orch:admin': ['orch:read', 'orch:write', 'orch:agent'],
  'audit:read': [],
  'platform:read': [],
  'platform:write': [],
  'platform:admin': ['platform:read', 'platform:write', 'people:enroll'],
  'people:enroll': [],
  'orch:agent': [],
  'cloud:admin:global': [],
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(scopes: readonly string[], needed: Scope): boolean {
  return scopes.some((scope) => isScope(scope) && (scope === needed || IMPLIED[scope].includes(needed)));
}

/**
 * What a token or account may carry: a scope of SCOPES, or a per-key prompt grant (prompt:read:{key}, with
 * wildcards; domain/prompts/scopes.ts), which platform:admin implies.
 */
export function isGrantableScope(value: string): boolean {
  return isScope(value) || isPromptScope(value);
}

/** The requested scopes that `held` does not grant, in the order requested: a principal grants only what it holds. */
export function scopesNotHeld<S extends string>(held: readonly string[], requested: readonly S[]): S[] {
  return requested.filter((scope) => !(isScope(scope) ? grants(held, scope) : promptScopeHeld(held, scope)));
}

export interface Principal {
  /** Stable id used for rate limits and idempotency: `pat:<id>`, `sa:<client_id>`, `agent:<agent_id>` or `sub:<subject>`. */
  id: string;
  kind: 'personal_access_token' | 'service_account' | 'jwt' | 'agent' | 'session' | 'delegation_token';
  subject: string;
  scopes: string[];
  /** The tenant: the caller sees and changes only this organization's resources. */
  organization_id: string;
  /** Present when the credential authenticates a Passport (a session or a delegation token). */
  actor?: Actor;
}

export const PAT_PREFIX = 'hnd_pat_';
export const CLIENT_SECRET_PREFIX = 'hnd_sk_';
export const AGENT_KEY_PREFIX = 'hnd_ak_';
const ACCESS_TOKEN_TYPE = 'at+jwt';

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

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

/** The service account when the secret matches (compared in constant time) and the account is live. */
export async function authenticateClient(db: Knex, clientId: string, clientSecret: string) {
  const account = await findServiceAccount(db, clientId);
  const presented = sha256(clientSecret);
  const stored = Buffer.from(account?.secret_hash ?? '0'.repeat(64), 'hex');
  const matches = stored.length === presented.length && timingSafeEqual(stored, presented);
  return account && matches && account.revoked_at === null ? account : undefined;
}

/** A registered agent's API key: random, shown once, stored only as its SHA-256 like the other secrets. */
export function mintAgentKey(): { api_key: string; api_key_hash: string } {
  const api_key = secret(AGENT_KEY_PREFIX);
  return { api_key, api_key_hash: sha256(api_key).toString('hex') };
}

export type BearerResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** A verifier for the signed tokens of one JOSE `typ` (dt+jwt: services/identity/issuance/delegation-tokens.ts), chosen by the token's header. */
export type TypedTokenVerifiers = Readonly<Record<string, (token: string) => Promise<BearerResult>>>;

export async function authenticateBearer(
  deps: {
    db: Knex;
    keyRing: KeyRing;
    settings: TokenSettings;
    verifiers?: TypedTokenVerifiers;
    verified?: VerifiedTokenCache;
  },
  token: string,
): Promise<BearerResult> {
  if (token.startsWith(AGENT_KEY_PREFIX)) {
    const agent = await findAgentByKeyHash(deps.db, sha256(token).toString('hex'));
    if (!agent) return { ok: false, reason: 'The agent key is not recognized' };
    if (agent.status !== 'active') return { ok: false, reason: `The agent ${agent.agent_id} is ${agent.status}` };
    return {
      ok: true,
      principal: {
        id: `agent:${agent.agent_id}`,
        kind: 'agent',
        subject: agent.agent_id,
        scopes: ['orch:agent'],
        organization_id: agent.organization_id,
      },
    };
  }
  if (token.startsWith(PAT_PREFIX)) {
    const row = await findApiTokenByHash(deps.db, sha256(token).toString('hex'));
    if (!row) return { ok: false, reason: 'The token is not recognized' };
    if (row.revoked_at) return { ok: false, reason: 'The token has been revoked' };
    if (row.expires_at && row.expires_at.getTime() <= Date.now()) return { ok: false, reason: 'The token has expired' };
    return {
      ok: true,
      principal: {
        id: `pat:${row.token_id}`,
        kind: 'personal_access_token',
        subject: row.token_id,
        scopes: row.scopes,
        organization_id: row.organization_id,
      },
    };
  }

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { ok: false, reason: 'The token is malformed' };
  }
  if (header.typ === SESSION_TOKEN_TYPE) return sessionPrincipal(deps, token);
  const verifier =
    typeof header.typ === 'string' && Object.hasOwn(deps.verifiers ?? {}, header.typ)
      ? deps.verifiers?.[header.typ]
      : undefined;
  if (verifier) return verifier(token);
  const cached = deps.verified?.get(token);
  if (cached && hasExpired(cached)) return { ok: false, reason: 'The token has expired' };
  // Asked even of a cached token, from the key ring's memory: a key withdrawn early (compromised) stops its tokens too.
  const key = header.kid ? await deps.keyRing.verificationKey(header.kid) : undefined;
  if (!key) return { ok: false, reason: 'The token was not signed by a key of this deployment' };
  try {
    const payload =
      cached ??
      (
        await jwtVerify(token, key, {
          algorithms: [SIGNING_ALGORITHM],
          issuer: deps.settings.issuer,
          audience: deps.settings.audience,
          typ: ACCESS_TOKEN_TYPE,
          requiredClaims: ['exp', 'sub'],
        })
      ).payload;
    if (!cached) deps.verified?.set(token, payload);
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    // A token signed before tenancy has no org claim: it was issued in the one organization there was.
    const organizationId = typeof payload.org === 'string' ? payload.org : DEFAULT_ORGANIZATION_ID;
    if (clientId) {
      // Signed tokens outlive a revocation unless the account is read each time: one primary-key lookup.
      const account = await findServiceAccount(deps.db, clientId);
      if (!account) return { ok: false, reason: 'The service account is not recognized' };
      if (account.revoked_at) return { ok: false, reason: 'The service account has been revoked' };
      // The account's organization, not the claim's, so a token never outlives a move out of it.
      return {
        ok: true,
        principal: {
          id: `sa:${clientId}`,
          kind: 'service_account',
          subject: payload.sub!,
          scopes,
          organization_id: account.organization_id,
        },
      };
    }
    const refusal = await subjectRefusal(deps.db, { subject: payload.sub!, organizationId, scopes });
    if (refusal) return { ok: false, reason: refusal };
    return {
      ok: true,
      principal: {
        id: `sub:${payload.sub!}`,
        kind: 'jwt',
        subject: payload.sub!,
        scopes,
        organization_id: organizationId,
      },
    };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The token has expired' };
    if (error instanceof joseErrors.JOSEError) return { ok: false, reason: `The token is not valid (${error.code})` };
    throw error;
  }
}

/**
 * Why a token without a service account may not hold what it claims, or undefined when it may: its subject must be
 * registered (services/identity/issuance/subjects.ts) in the organization it claims, with scopes that cover the claimed ones.
 * Read on every request, like a service account, so a registration withdrawn stops its tokens at once.
 */
async function subjectRefusal(
  db: Knex,
  claims: { subject: string; organizationId: string; scopes: readonly string[] },
): Promise<string | undefined> {
  const registered = await findTokenSubject(db, claims.subject, claims.organizationId);
  if (!registered) return `The token's subject is not registered in the organization it claims`;
  const beyond = scopesNotHeld(registered.scopes, claims.scopes);
  return beyond.length > 0
    ? `The token claims scopes its subject is not registered for: ${beyond.join(' ')}`
    : undefined;
}

/** A signed-in person: the Passport is the actor, named with the passkey or device key the session was signed in with. */
async function sessionPrincipal(
  deps: { db: Knex; keyRing: KeyRing; settings: TokenSettings; verified?: VerifiedTokenCache },
  token: string,
): Promise<BearerResult> {
  const result = await authenticateSession(deps, token);
  if (!result.ok) return result;
  const { session } = result;
  return {
    ok: true,
    principal: {
      id: `passport:${session.passport_id}`,
      kind: 'session',
      subject: session.did,
      // What a signed-in person holds: read and act in their organization, never administration (domain/identity/capabilities.ts).
      scopes: [...SIGNED_IN_PERSON_GRANTS],
      organization_id: session.organization_id,
      actor: { passport_id: session.passport_id, did: session.did, credential: session.credential },
    },
  };
}
