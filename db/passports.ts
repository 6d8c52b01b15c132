import type { Knex } from 'knex';
import type { Ed25519PublicJwk, PassportKeyStatus } from '../domain/identity/did';
import type { Passport } from '../contracts/aggregates/passport';

/** A Passport as the passports table stores it: the passport aggregate (contracts/aggregates/passport.ts). */
export type PassportRow = Passport;

/** A Passport with its organization's DID, which owns agent and organization Passports. */
export type PassportWithOrganization = PassportRow & { org_did: string };

export interface PassportKeyRow {
  kid: string;
  passport_id: string;
  public_jwk: Ed25519PublicJwk & { kid: string; alg: 'EdDSA'; use: 'sig' };
  /** Server-held keys only (agents, organizations): the private JWK sealed by the secret box. */
  sealed_private_key: string | null;
  source: 'server' | 'device';
  device_id: string | null;
  status: PassportKeyStatus;
  created_at: Date;
  retired_at: Date | null;
  verify_until: Date | null;
  revoked_at: Date | null;
  revoke_reason: string | null;
}

export type NewPassportKey = Pick<
  PassportKeyRow,
  'kid' | 'passport_id' | 'public_jwk' | 'sealed_private_key' | 'source' | 'device_id'
>;

/** False when the row was not written: the id is taken, or the organization already has its organization Passport. */
export async function insertPassport(db: Knex, row: Omit<PassportRow, 'status' | 'updated_at'>): Promise<boolean> {
  const inserted = await db('passports')
    .insert({ ...row, metadata: JSON.stringify(row.metadata), status: 'active', updated_at: row.created_at })
    .onConflict()
    .ignore()
    .returning('passport_id');
  return inserted.length > 0;
}

/** Within an organization when one is named: another tenant's Passport is not found. */
export async function findPassport(
  db: Knex,
  passportId: string,
  organizationId?: string,
): Promise<PassportWithOrganization | undefined> {
  const query = db('passports')
    .join('organizations', 'organizations.organization_id', 'passports.organization_id')
    .where('passports.passport_id', passportId)
    .first<PassportWithOrganization | undefined>('passports.*', 'organizations.org_did');
  if (organizationId !== undefined) void query.andWhere('passports.organization_id', organizationId);
  return query;
}

export async function findOrganizationPassport(db: Knex, organizationId: string): Promise<PassportRow | undefined> {
  return db('passports')
    .where({ organization_id: organizationId, type: 'organization' })
    .first<PassportRow | undefined>();
}

/** Serializes key changes of one Passport (rotations, revocations) within the caller's transaction. */
export async function lockPassport(trx: Knex.Transaction, passportId: string): Promise<void> {
  await trx('passports').where({ passport_id: passportId }).forUpdate().first('passport_id');
}

/** False when a key with this thumbprint is already registered (to any Passport). */
export async function insertPassportKey(db: Knex, key: NewPassportKey, now: Date): Promise<boolean> {
  const inserted = await db('passport_keys')
    .insert({ ...key, public_jwk: JSON.stringify(key.public_jwk), status: 'active', created_at: now })
    .onConflict('kid')
    .ignore()
    .returning('kid');
  return inserted.length > 0;
}

/** Oldest first, every status. */
export async function listPassportKeys(db: Knex, passportId: string): Promise<PassportKeyRow[]> {
  return db('passport_keys')
    .where({ passport_id: passportId })
    .orderBy([{ column: 'created_at' }, { column: 'kid' }]);
}

export async function findPassportKey(db: Knex, kid: string): Promise<PassportKeyRow | undefined> {
  return db('passport_keys').where({ kid }).first<PassportKeyRow | undefined>();
}

/** The key a server-held Passport signs with now. */
export async function findActiveServerKey(db: Knex, passportId: string): Promise<PassportKeyRow | undefined> {
  return db('passport_keys')
    .where({ passport_id: passportId, source: 'server', status: 'active' })
    .orderBy('created_at', 'desc')
    .first<PassportKeyRow | undefined>();
}

/** Rotates out every active key of the Passport but the new one: they verify until verifyUntil, sign no more. */
export async function retireActiveKeys(
  db: Knex,
  passportId: string,
  exceptKid: string,
  now: Date,
  verifyUntil: Date,
): Promise<string[]> {
  const rows: { kid: string }[] = await db('passport_keys')
    .where({ passport_id: passportId, status: 'active' })
    .whereNot({ kid: exceptKid })
    .update({ status: 'retired', retired_at: now, verify_until: verifyUntil })
    .returning('kid');
  return rows.map((row) => row.kid);
}

/** Undefined when the Passport has no such key, or it is revoked already. */
export async function revokePassportKey(
  db: Knex,
  passportId: string,
  kid: string,
  reason: string,
  now: Date,
): Promise<PassportKeyRow | undefined> {
  const [row] = await db('passport_keys')
    .where({ passport_id: passportId, kid })
    .whereNot({ status: 'revoked' })
    .update({ status: 'revoked', revoked_at: now, revoke_reason: reason })
    .returning<PassportKeyRow[]>('*');
  return row;
}

export type ChallengePurpose = 'registration' | 'sign_in';

export interface ChallengeRow {
  challenge_hash: string;
  purpose: ChallengePurpose;
  organization_id: string;
  passport_id: string | null;
  registration: { name: string; metadata: Record<string, unknown>; capabilities: string[] } | null;
  requested_by: string | null;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
}

export async function insertChallenge(db: Knex, row: Omit<ChallengeRow, 'consumed_at'>): Promise<void> {
  await db('passport_challenges').insert({
    ...row,
    registration: row.registration === null ? null : JSON.stringify(row.registration),
  });
}

/** Deletes up to `limit` challenges that expired before `before`: a challenge is worth nothing once expired. */
export async function purgeExpiredChallenges(db: Knex, before: Date, limit: number): Promise<number> {
  return db('passport_challenges')
    .whereIn(
      'challenge_hash',
      db('passport_challenges').select('challenge_hash').where('expires_at', '<', before).limit(limit),
    )
    .delete();
}

export async function findChallenge(db: Knex, challengeHash: string): Promise<ChallengeRow | undefined> {
  return db('passport_challenges').where({ challenge_hash: challengeHash }).first<ChallengeRow | undefined>();
}

/** The one conditional write that makes a challenge single-use: only an unused, unexpired one is consumed. */
export async function consumeChallenge(db: Knex, challengeHash: string, now: Date): Promise<boolean> {
  const consumed = await db('passport_challenges')
    .where({ challenge_hash: challengeHash })
    .whereNull('consumed_at')
    .where('expires_at', '>', now)
    .update({ consumed_at: now });
  return consumed === 1;
}
