import type { JWK } from 'jose';
import type { Knex } from 'knex';
import { paginate, type Page, type PageRequest } from './pagination';

export interface SigningKeyRow {
  kid: string;
  public_jwk: JWK;
  /** Null once sealed; a row from before sealing (or with no secrets key configured) keeps it in the clear. */
  private_jwk: JWK | null;
  /** The private JWK sealed with the secret box (lib/secret-box.ts), bound to the kid. */
  sealed_private_key: string | null;
  created_at: Date;
  retired_at: Date | null;
  publish_until: Date | null;
}

/** The active key (newest unretired) and every retired key still inside its publication window. */
export async function findPublishedSigningKeys(db: Knex, now: Date): Promise<SigningKeyRow[]> {
  return db<SigningKeyRow>('signing_keys')
    .whereNull('retired_at')
    .orWhere('publish_until', '>', now)
    .orderBy('created_at', 'desc');
}

export async function insertSigningKey(
  db: Knex,
  key: Pick<SigningKeyRow, 'kid' | 'public_jwk' | 'private_jwk' | 'sealed_private_key'>,
): Promise<void> {
  await db('signing_keys')
    .insert({
      ...key,
      public_jwk: JSON.stringify(key.public_jwk),
      private_jwk: key.private_jwk === null ? null : JSON.stringify(key.private_jwk),
    })
    .onConflict('kid')
    .ignore();
}

/** The private half of every key, published or not: in the clear, or sealed. */
export async function findSigningKeySecrets(
  db: Knex,
): Promise<Array<Pick<SigningKeyRow, 'kid' | 'private_jwk' | 'sealed_private_key'>>> {
  return db('signing_keys').select('kid', 'private_jwk', 'sealed_private_key');
}

/** Stores a key's private half sealed (again), never in the clear. */
export async function sealSigningKey(db: Knex, kid: string, sealed: string): Promise<void> {
  await db('signing_keys').where({ kid }).update({ private_jwk: null, sealed_private_key: sealed });
}

/** Retires every active key but `keepKid`; each stays published until tokens it signed have expired. */
export async function retireSigningKeysExcept(
  db: Knex,
  keepKid: string,
  now: Date,
  publishUntil: Date,
): Promise<number> {
  return db('signing_keys')
    .whereNull('retired_at')
    .whereNot({ kid: keepKid })
    .update({ retired_at: now, publish_until: publishUntil });
}

export interface ApiTokenRow {
  token_id: string;
  name: string;
  token_hash: string;
  scopes: string[];
  organization_id: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export async function insertApiToken(
  db: Knex,
  token: Omit<ApiTokenRow, 'created_at' | 'revoked_at'>,
): Promise<ApiTokenSummary> {
  const [row] = await db('api_tokens')
    .insert(token)
    .returning<ApiTokenSummary[]>([...API_TOKEN_SUMMARY_COLUMNS]);
  return row!;
}

/**
 * The tables every request's authentication reads (a session's: its key or passkey, and the administrator role);
 * each change notifies CREDENTIALS_CHANNEL with the table's name (a trigger).
 */
export const CREDENTIAL_TABLES = [
  'token_subjects',
  'service_accounts',
  'agents',
  'api_tokens',
  'passport_keys',
  'webauthn_credentials',
  'employees',
] as const;
export const CREDENTIALS_CHANNEL = 'credentials_changed';

export async function findApiTokenByHash(db: Knex, tokenHash: string): Promise<ApiTokenRow | undefined> {
  return db<ApiTokenRow>('api_tokens').where({ token_hash: tokenHash }).first();
}

export type ApiTokenSummary = Omit<ApiTokenRow, 'token_hash'>;

/** Never the token's hash: these are read by administrators, not by the bearer check. */
const API_TOKEN_SUMMARY_COLUMNS = [
  'token_id',
  'name',
  'scopes',
  'organization_id',
  'created_by',
  'created_at',
  'expires_at',
  'revoked_at',
] as const;

export type ApiTokenStatus = 'active' | 'expired' | 'revoked';

export async function listApiTokens(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: ApiTokenStatus | undefined },
): Promise<Page<ApiTokenSummary>> {
  const query = db('api_tokens')
    .select(...API_TOKEN_SUMMARY_COLUMNS)
    .where({ organization_id: organizationId });
  if (filter.status === 'revoked') query.whereNotNull('revoked_at');
  if (filter.status === 'expired') query.whereNull('revoked_at').where('expires_at', '<=', db.fn.now());
  if (filter.status === 'active')
    query.whereNull('revoked_at').where((live) => live.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()));
  return paginate<ApiTokenSummary>(query, page);
}

export async function findApiToken(
  db: Knex,
  organizationId: string,
  tokenId: string,
): Promise<ApiTokenSummary | undefined> {
  return db('api_tokens')
    .select(...API_TOKEN_SUMMARY_COLUMNS)
    .where({ token_id: tokenId, organization_id: organizationId })
    .first<ApiTokenSummary | undefined>();
}

/** Marks the token revoked, keeping the first revocation's time; undefined when the organization has no such token. */
export async function markApiTokenRevoked(
  db: Knex,
  organizationId: string,
  tokenId: string,
): Promise<{ token_id: string; revoked_at: Date } | undefined> {
  const [row] = await db('api_tokens')
    .where({ token_id: tokenId, organization_id: organizationId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning<{ token_id: string; revoked_at: Date }[]>(['token_id', 'revoked_at']);
  return row;
}

export interface ServiceAccountRow {
  client_id: string;
  name: string;
  secret_hash: string;
  scopes: string[];
  organization_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertServiceAccount(
  db: Knex,
  account: Omit<ServiceAccountRow, 'created_at' | 'revoked_at'>,
): Promise<void> {
  await db('service_accounts').insert(account);
}

export async function findServiceAccount(db: Knex, clientId: string): Promise<ServiceAccountRow | undefined> {
  return db<ServiceAccountRow>('service_accounts').where({ client_id: clientId }).first();
}

export type ServiceAccountSummary = Omit<ServiceAccountRow, 'secret_hash'>;

/** Never the secret's hash: lists are read by administrators, not by the token endpoint. */
const SUMMARY_COLUMNS = ['client_id', 'name', 'scopes', 'organization_id', 'created_at', 'revoked_at'] as const;

export async function listServiceAccounts(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { status?: 'active' | 'revoked' | undefined },
): Promise<Page<ServiceAccountSummary>> {
  const query = db('service_accounts')
    .select(...SUMMARY_COLUMNS)
    .where({ organization_id: organizationId });
  if (filter.status === 'active') query.whereNull('revoked_at');
  if (filter.status === 'revoked') query.whereNotNull('revoked_at');
  return paginate<ServiceAccountSummary>(query, page);
}

/** Marks the account revoked, keeping the first revocation's time; undefined when there is no such account. */
export async function markServiceAccountRevoked(
  db: Knex,
  organizationId: string,
  clientId: string,
): Promise<{ client_id: string; revoked_at: Date } | undefined> {
  const [row] = await db('service_accounts')
    .where({ client_id: clientId, organization_id: organizationId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning<{ client_id: string; revoked_at: Date }[]>(['client_id', 'revoked_at']);
  return row;
}

export interface TokenSubjectRow {
  subject: string;
  organization_id: string;
  scopes: string[];
}

/** Registers a subject in an organization, or widens its registration to the given scopes too. */
export async function upsertTokenSubject(db: Knex, row: TokenSubjectRow): Promise<void> {
  await db('token_subjects')
    .insert(row)
    .onConflict(['subject', 'organization_id'])
    .merge({
      scopes: db.raw('array(select distinct unnest(token_subjects.scopes || excluded.scopes) order by 1)'),
      updated_at: db.fn.now(),
    });
}

export async function findTokenSubject(
  db: Knex,
  subject: string,
  organizationId: string,
): Promise<TokenSubjectRow | undefined> {
  return db<TokenSubjectRow>('token_subjects')
    .select('subject', 'organization_id', 'scopes')
    .where({ subject, organization_id: organizationId })
    .first();
}
