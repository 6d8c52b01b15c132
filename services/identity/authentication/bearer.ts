import { timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Knex } from 'knex';
import { findAgentByKeyHash } from '../../../db/agents';
import { CREDENTIAL_TABLES, findApiTokenByHash, findServiceAccount, findTokenSubject } from '../../../db/credentials';
import { administersOrganization } from '../../../db/employees';
import {
  ORGANIZATION_ADMINISTRATION_CAPABILITIES,
  SIGNED_IN_PERSON_GRANTS,
} from '../../../domain/identity/capabilities';
import { DEFAULT_ORGANIZATION_ID } from '../../../domain/common/organizations';
import type { NotifiedCache } from '../../../lib/notified-cache';
import {
  hasExpired,
  protectedHeaderOf,
  type VerifiedHeader,
  type VerifiedTokenCache,
} from '../../../lib/verified-tokens';
import { SIGNING_ALGORITHM, type KeyRing } from '../issuance/key-ring';
import { ACCESS_TOKEN_TYPE, AGENT_KEY_PREFIX, PAT_PREFIX, sha256 } from '../issuance/secrets';
import { authenticateSession, SESSION_TOKEN_TYPE, type SessionCredentialCheck } from '../issuance/session-tokens';
import { sessionCredentialIsActive } from '../../../db/sessions';
import { scopesNotHeld, type Principal } from '../scopes';
import type { TokenSettings } from './actor';

/** The service account when the secret matches (compared in constant time) and the account is live. */
export async function authenticateClient(db: Knex, clientId: string, clientSecret: string) {
  const account = await findServiceAccount(db, clientId);
  const presented = sha256(clientSecret);
  const stored = Buffer.from(account?.secret_hash ?? '0'.repeat(64), 'hex');
  const matches = stored.length === presented.length && timingSafeEqual(stored, presented);
  return account && matches && account.revoked_at === null ? account : undefined;
}

export type BearerResult = { ok: true; principal: Principal } | { ok: false; reason: string };

/** A verifier for the signed tokens of one JOSE `typ` (dt+jwt: services/identity/issuance/delegation-tokens.ts), chosen by the token's header. */
export type TypedTokenVerifiers = Readonly<Record<string, (token: string) => Promise<BearerResult>>>;

type BearerDeps = {
  db: Knex;
  keyRing: KeyRing;
  settings: TokenSettings;
  verifiers?: TypedTokenVerifiers;
  verified?: VerifiedTokenCache;
  /** The credential rows, held while every change to them is heard of (app/deps.ts); without it each is read. */
  credentials?: NotifiedCache;
};

/**
 * The credential rows a token needs, read on every request so that a revocation stops its tokens at once —
 * from memory while the cache hears of every change to their tables (lib/notified-cache.ts says what a caller
 * may observe).
 */
class CredentialReads {
  constructor(
    private readonly db: Knex,
    private readonly cache: NotifiedCache | undefined,
  ) {}

  private read<T>(table: (typeof CREDENTIAL_TABLES)[number], key: string, load: () => Promise<T>): Promise<T> {
    return this.cache ? this.cache.get(table, key, load) : load();
  }

  agentByKeyHash = (keyHash: string) => this.read('agents', keyHash, () => findAgentByKeyHash(this.db, keyHash));
  apiTokenByHash = (tokenHash: string) =>
    this.read('api_tokens', tokenHash, () => findApiTokenByHash(this.db, tokenHash));
  serviceAccount = (clientId: string) =>
    this.read('service_accounts', clientId, () => findServiceAccount(this.db, clientId));
  tokenSubject = (subject: string, organizationId: string) =>
    this.read('token_subjects', `${organizationId} ${subject}`, () =>
      findTokenSubject(this.db, subject, organizationId),
    );
  sessionCredentialIsActive: SessionCredentialCheck = (credential) =>
    this.read(
      credential.type === 'passkey' ? 'webauthn_credentials' : 'passport_keys',
      `${credential.passport_id} ${credential.id}`,
      () => sessionCredentialIsActive(this.db, credential),
    );
  administers = (passportId: string, organizationId: string) =>
    this.read('employees', `${organizationId} ${passportId}`, () =>
      administersOrganization(this.db, passportId, organizationId),
    );
}

export async function authenticateBearer(deps: BearerDeps, token: string): Promise<BearerResult> {
  const reads = new CredentialReads(deps.db, deps.credentials);
  if (token.startsWith(AGENT_KEY_PREFIX)) return agentKeyPrincipal(reads, token);
  if (token.startsWith(PAT_PREFIX)) return personalAccessTokenPrincipal(reads, token);
  const header = protectedHeaderOf(deps.verified, token);
  if (!header) return { ok: false, reason: 'The token is malformed' };
  if (header.typ === SESSION_TOKEN_TYPE) return sessionPrincipal(deps, reads, token);
  const verifier =
    typeof header.typ === 'string' && Object.hasOwn(deps.verifiers ?? {}, header.typ)
      ? deps.verifiers?.[header.typ]
      : undefined;
  if (verifier) return verifier(token);
  return accessTokenPrincipal(deps, reads, token, header);
}

/** A registered agent's API key: the agent, while it is active, holding orch:agent only. */
async function agentKeyPrincipal(reads: CredentialReads, token: string): Promise<BearerResult> {
  const agent = await reads.agentByKeyHash(sha256(token).toString('hex'));
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

/** A personal access token, read on every request so a revocation or expiry stops it at once. */
async function personalAccessTokenPrincipal(reads: CredentialReads, token: string): Promise<BearerResult> {
  const row = await reads.apiTokenByHash(sha256(token).toString('hex'));
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

/** An RFC 9068 access token signed by a key of this deployment (verified once, then from the cache until it expires). */
async function accessTokenPrincipal(
  deps: BearerDeps,
  reads: CredentialReads,
  token: string,
  header: VerifiedHeader,
): Promise<BearerResult> {
  const { kid } = header;
  const cached = deps.verified?.get(token);
  if (cached && hasExpired(cached)) return { ok: false, reason: 'The token has expired' };
  // Asked even of a cached token, from the key ring's memory: a key withdrawn early (compromised) stops its tokens too.
  const key = kid ? await deps.keyRing.verificationKey(kid) : undefined;
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
    if (!cached) deps.verified?.set(token, payload, header);
    return await claimsPrincipal(reads, payload);
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'The token has expired' };
    if (error instanceof joseErrors.JOSEError) return { ok: false, reason: `The token is not valid (${error.code})` };
    throw error;
  }
}

/** The principal a verified access token's claims name: its service account's, or its registered subject's. */
async function claimsPrincipal(reads: CredentialReads, payload: JWTPayload): Promise<BearerResult> {
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
  // A token signed before tenancy has no org claim: it was issued in the one organization there was.
  const organizationId = typeof payload.org === 'string' ? payload.org : DEFAULT_ORGANIZATION_ID;
  if (clientId) {
    // Signed tokens outlive a revocation unless the account is read each time (from memory while its changes are heard of).
    const account = await reads.serviceAccount(clientId);
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
  const refusal = await subjectRefusal(reads, { subject: payload.sub!, organizationId, scopes });
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
}

/**
 * Why a token without a service account may not hold what it claims, or undefined when it may: its subject must be
 * registered (services/identity/issuance/subjects.ts) in the organization it claims, with scopes that cover the claimed ones.
 * Read on every request, like a service account, so a registration withdrawn stops its tokens at once.
 */
async function subjectRefusal(
  reads: CredentialReads,
  claims: { subject: string; organizationId: string; scopes: readonly string[] },
): Promise<string | undefined> {
  const registered = await reads.tokenSubject(claims.subject, claims.organizationId);
  if (!registered) return `The token's subject is not registered in the organization it claims`;
  const beyond = scopesNotHeld(registered.scopes, claims.scopes);
  return beyond.length > 0
    ? `The token claims scopes its subject is not registered for: ${beyond.join(' ')}`
    : undefined;
}

/** A signed-in person: the Passport is the actor, named with the passkey or device key the session was signed in with. */
async function sessionPrincipal(deps: BearerDeps, reads: CredentialReads, token: string): Promise<BearerResult> {
  const result = await authenticateSession(deps, token, reads.sessionCredentialIsActive);
  if (!result.ok) return result;
  const { session } = result;
  return {
    ok: true,
    principal: {
      id: `passport:${session.passport_id}`,
      kind: 'session',
      subject: session.did,
      // What a signed-in person holds: read and act in their organization; its administration only as its
      // administrator, read on every request (from memory while its changes are heard of) so that a role taken away
      // ends at once (domain/identity/capabilities.ts).
      scopes: (await reads.administers(session.passport_id, session.organization_id))
        ? [...SIGNED_IN_PERSON_GRANTS, ...ORGANIZATION_ADMINISTRATION_CAPABILITIES]
        : [...SIGNED_IN_PERSON_GRANTS],
      organization_id: session.organization_id,
      actor: { passport_id: session.passport_id, did: session.did, credential: session.credential },
    },
  };
}
