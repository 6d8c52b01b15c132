import type { Knex } from 'knex';
import type { Delegation } from '../contracts/aggregates/delegation';
import { paginate, type Page, type PageRequest } from './pagination';
import { sessionCredentialIsActive } from './sessions';

export const REVOCATIONS_CHANNEL = 'delegation_revocations';

/** A delegation as the delegations table stores it: the delegation aggregate (contracts/aggregates/delegation.ts). */
export type DelegationRow = Delegation;

export interface DelegationTokenRow {
  token_id: string;
  delegation_id: string;
  status: 'active' | 'rotated' | 'revoked';
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoke_reason: string | null;
  replaced_by: string | null;
}

export interface RevocationRow {
  id: string;
  organization_id: string;
  delegation_id: string;
  token_id: string | null;
  revoked_by: string;
  revoked_at: Date;
  reason: string | null;
  metadata: Record<string, unknown>;
  expires_at: Date;
}

/** Who may see a delegation: its organization, and within it the delegator alone unless the caller is not a Passport. */
export interface DelegationScope {
  organization_id: string;
  passport_id?: string | undefined;
}

function scoped(query: Knex.QueryBuilder, scope: DelegationScope, table = 'delegations'): Knex.QueryBuilder {
  query.where(`${table}.organization_id`, scope.organization_id);
  if (scope.passport_id !== undefined) query.where(`${table}.passport_id`, scope.passport_id);
  return query;
}

/** Records a delegation and its first token; false when the passkey or device key it acts with is no longer active. */
export async function insertDelegation(
  db: Knex,
  delegation: Omit<DelegationRow, 'revoked_at'>,
  token: Omit<DelegationTokenRow, 'revoked_at' | 'revoke_reason' | 'replaced_by' | 'status'>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    // Share-locked: a revocation of the credential either committed before (seen here) or waits, and then finds this delegation.
    const credential = {
      type: delegation.credential_type,
      id: delegation.credential_id,
      passport_id: delegation.passport_id,
    };
    if (!(await sessionCredentialIsActive(trx, credential, { forShare: true }))) return false;
    await trx('delegations').insert({ ...delegation, revoked_at: null });
    await trx('delegation_tokens').insert({ ...token, status: 'active' });
    return true;
  });
}

export async function findDelegation(
  db: Knex,
  scope: DelegationScope,
  delegationId: string,
): Promise<DelegationRow | undefined> {
  return (await scoped(db('delegations').where({ delegation_id: delegationId }), scope).first()) as
    DelegationRow | undefined;
}

export interface TokenWithDelegation extends DelegationTokenRow {
  delegation: DelegationRow;
}

/** The token's own columns; the rest of a joined row is its delegation's (whose times come as d_*). */
const TOKEN_FIELDS = ['token_id', 'status', 'created_at', 'expires_at', 'revoked_at', 'revoke_reason', 'replaced_by'];
const TOKEN_COLUMNS = TOKEN_FIELDS.map((column) => `delegation_tokens.${column}`);

function withDelegation(row: Record<string, unknown>): TokenWithDelegation {
  const { d_created_at, d_expires_at, d_revoked_at, ...rest } = row;
  const token = Object.fromEntries(TOKEN_FIELDS.map((field) => [field, rest[field]]));
  const delegation = Object.fromEntries(Object.entries(rest).filter(([key]) => !TOKEN_FIELDS.includes(key)));
  return {
    ...token,
    delegation_id: delegation.delegation_id,
    delegation: { ...delegation, created_at: d_created_at, expires_at: d_expires_at, revoked_at: d_revoked_at },
  } as TokenWithDelegation;
}

function tokensQuery(db: Knex, scope: DelegationScope): Knex.QueryBuilder {
  return scoped(
    db('delegation_tokens')
      .join('delegations', 'delegations.delegation_id', 'delegation_tokens.delegation_id')
      .select(
        ...TOKEN_COLUMNS,
        'delegations.*',
        'delegations.created_at as d_created_at',
        'delegations.expires_at as d_expires_at',
        'delegations.revoked_at as d_revoked_at',
      ),
    scope,
  );
}

export async function findToken(
  db: Knex,
  scope: DelegationScope,
  tokenId: string,
): Promise<TokenWithDelegation | undefined> {
  const row = (await tokensQuery(db, scope).where('delegation_tokens.token_id', tokenId).first()) as
    Record<string, unknown> | undefined;
  return row ? withDelegation(row) : undefined;
}

export async function listTokens(
  db: Knex,
  scope: DelegationScope,
  page: PageRequest,
  filters: { delegation_id?: string | undefined; status?: string | undefined },
): Promise<Page<TokenWithDelegation>> {
  const query = tokensQuery(db, scope);
  if (filters.delegation_id) query.where('delegation_tokens.delegation_id', filters.delegation_id);
  if (filters.status) query.where('delegation_tokens.status', filters.status);
  const result = await paginate<Record<string, unknown>>(query, page);
  return { ...result, data: result.data.map(withDelegation) };
}

/** Replaces an active token by a new one in the same delegation; false when the old one is no longer active. */
export async function rotateToken(
  db: Knex,
  old: { token_id: string; reason: string; at: Date },
  next: Omit<DelegationTokenRow, 'revoked_at' | 'revoke_reason' | 'replaced_by' | 'status'>,
  revocation: RevocationRow,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const updated = await trx('delegation_tokens')
      .where({ token_id: old.token_id, status: 'active' })
      .update({ status: 'rotated', revoked_at: old.at, revoke_reason: old.reason, replaced_by: next.token_id });
    if (updated === 0) return false;
    await trx('delegation_tokens').insert({ ...next, status: 'active' });
    await recordRevocation(trx, revocation);
    return true;
  });
}

/** Revokes one token; false when it was not active. */
export async function revokeToken(db: Knex, revocation: RevocationRow & { token_id: string }): Promise<boolean> {
  return db.transaction(async (trx) => {
    const updated = await trx('delegation_tokens')
      .where({ token_id: revocation.token_id, status: 'active' })
      .update({ status: 'revoked', revoked_at: revocation.revoked_at, revoke_reason: revocation.reason });
    if (updated === 0) return false;
    await recordRevocation(trx, revocation);
    return true;
  });
}

/** Revokes a delegation for good; the existing revocation when it already was. */
export async function revokeDelegation(
  db: Knex,
  revocation: RevocationRow,
): Promise<{ created: boolean; revocation: RevocationRow }> {
  return db.transaction(async (trx) => {
    const updated = await trx('delegations')
      .where({ delegation_id: revocation.delegation_id })
      .whereNull('revoked_at')
      .update({ revoked_at: revocation.revoked_at });
    if (updated === 0) {
      const existing = await findFamilyRevocation(trx, revocation.delegation_id);
      if (existing) return { created: false, revocation: existing };
    }
    await trx('delegation_tokens')
      .where({ delegation_id: revocation.delegation_id, status: 'active' })
      .update({ status: 'revoked', revoked_at: revocation.revoked_at, revoke_reason: revocation.reason });
    await recordRevocation(trx, revocation);
    return { created: true, revocation };
  });
}

/** The live delegations a passkey or device key signed in for, locked until the caller's transaction ends. */
export async function lockDelegationsOfCredential(
  trx: Knex.Transaction,
  credential: { type: 'passkey' | 'device_key'; id: string },
  at: Date,
): Promise<DelegationRow[]> {
  return (await trx('delegations')
    .where({ credential_type: credential.type, credential_id: credential.id })
    .whereNull('revoked_at')
    .where('expires_at', '>', at)
    .forUpdate()) as DelegationRow[];
}

/** Revokes each delegation with every token of it, in the caller's transaction; the delegations below are refused through their chains. */
export async function recordDelegationRevocations(
  trx: Knex.Transaction,
  revocations: readonly RevocationRow[],
): Promise<void> {
  for (const revocation of revocations) {
    await trx('delegations')
      .where({ delegation_id: revocation.delegation_id })
      .whereNull('revoked_at')
      .update({ revoked_at: revocation.revoked_at });
    await trx('delegation_tokens')
      .where({ delegation_id: revocation.delegation_id, status: 'active' })
      .update({ status: 'revoked', revoked_at: revocation.revoked_at, revoke_reason: revocation.reason });
    await recordRevocation(trx, revocation);
  }
}

/** The row and, delivered at commit, a notification every API instance applies at once. */
async function recordRevocation(trx: Knex.Transaction, revocation: RevocationRow): Promise<void> {
  await trx('delegation_revocations').insert({ ...revocation, metadata: JSON.stringify(revocation.metadata) });
  await trx.raw('select pg_notify(?, ?)', [
    REVOCATIONS_CHANNEL,
    JSON.stringify({ d: revocation.delegation_id, t: revocation.token_id }),
  ]);
}

export async function findFamilyRevocation(db: Knex, delegationId: string): Promise<RevocationRow | undefined> {
  return (await db('delegation_revocations').where({ delegation_id: delegationId }).whereNull('token_id').first()) as
    RevocationRow | undefined;
}

export async function listRevocations(
  db: Knex,
  scope: DelegationScope,
  page: PageRequest,
  filters: { revoked_by?: string | undefined; since?: Date | undefined },
): Promise<Page<RevocationRow>> {
  const query = db('delegation_revocations')
    .select('delegation_revocations.*')
    .where('delegation_revocations.organization_id', scope.organization_id);
  if (scope.passport_id !== undefined) {
    query.whereIn(
      'delegation_revocations.delegation_id',
      db('delegations').select('delegation_id').where({ passport_id: scope.passport_id }),
    );
  }
  if (filters.revoked_by) query.where('delegation_revocations.revoked_by', filters.revoked_by);
  if (filters.since) query.where('delegation_revocations.revoked_at', '>=', filters.since);
  return paginate<RevocationRow>(query, page);
}

/**
 * Where a catch-up of revocations resumes: the oldest transaction id still running when the last one read
 * (an xid8, as text). Every revocation written by an older transaction was visible to that read; one written
 * by a transaction running then, however late it commits, has an id at or above the cursor.
 */
export type RevocationCursor = string;

/**
 * What an instance must refuse: revocations whose tokens have not expired, written by a transaction at or
 * after `cursor` (all when undefined), and the cursor the next catch-up starts from. One statement, so the
 * rows and the cursor come from one snapshot.
 */
export async function revocationsSince(
  db: Knex,
  cursor: RevocationCursor | undefined,
): Promise<{ revocations: Array<{ delegation_id: string; token_id: string | null }>; cursor: RevocationCursor }> {
  const result = await db.raw<{
    rows: Array<{ cursor: string; delegation_id: string | null; token_id: string | null }>;
  }>(
    `select s.cursor, r.delegation_id, r.token_id
       from (select pg_snapshot_xmin(pg_current_snapshot())::text as cursor) s
       left join delegation_revocations r on r.expires_at > now() and (?::xid8 is null or r.xid >= ?::xid8)`,
    [cursor ?? null, cursor ?? null],
  );
  const revocations = result.rows.flatMap((row) =>
    row.delegation_id === null ? [] : [{ delegation_id: row.delegation_id, token_id: row.token_id }],
  );
  return { revocations, cursor: result.rows[0]!.cursor };
}
