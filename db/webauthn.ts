import type { Knex } from 'knex';
import type { PasskeyRevokeReason, WebAuthnCeremony } from '../domain/identity/passkeys';

export interface ChallengeRow {
  challenge: string;
  ceremony: WebAuthnCeremony;
  organization_id: string | null;
  passport_id: string | null;
  user_name: string | null;
  display_name: string | null;
  rotates_credential_id: string | null;
  /** An enrollment for a reviewer: the reviewer the new Passport is linked to. */
  reviewer_did: string | null;
  created_at: Date;
  expires_at: Date;
}

export type NewChallenge = Omit<ChallengeRow, 'created_at' | 'expires_at' | 'reviewer_did'> & {
  reviewer_did?: string | null | undefined;
  ttlSeconds: number;
};

export interface PasskeyRow {
  credential_id: string;
  passport_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  counter: number;
  transports: string[];
  status: 'active' | 'revoked';
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoke_reason: string | null;
  replaced_by: string | null;
}

export type NewPasskey = Pick<PasskeyRow, 'credential_id' | 'passport_id' | 'public_key' | 'counter' | 'transports'>;

export interface PassportIdentity {
  passport_id: string;
  did: string;
  name: string;
  organization_id: string;
  status: string;
  created_at: Date;
}

/** Expiry by the database's clock, so that every API instance agrees on it. */
export async function insertChallenge(db: Knex, challenge: NewChallenge): Promise<ChallengeRow> {
  const { ttlSeconds, ...row } = challenge;
  const [inserted] = await db<ChallengeRow>('webauthn_challenges')
    .insert({ ...row, expires_at: db.raw('now() + make_interval(secs => ?)', [ttlSeconds]) as unknown as Date })
    .returning('*');
  return inserted!;
}

/**
 * Takes the challenge out whether or not it is still live: one conditional delete, so that of two requests
 * answering it at once only one gets it, and an expired one cannot be tried again either.
 */
export async function consumeChallenge(
  db: Knex,
  where: { challenge: string; ceremony: WebAuthnCeremony; passport_id?: string },
): Promise<(ChallengeRow & { live: boolean }) | undefined> {
  const passportClause = where.passport_id === undefined ? '' : ' AND passport_id = ?';
  const bindings = [where.challenge, where.ceremony, ...(where.passport_id === undefined ? [] : [where.passport_id])];
  const result = await db.raw<{ rows: Array<ChallengeRow & { live: boolean }> }>(
    `DELETE FROM webauthn_challenges WHERE challenge = ? AND ceremony = ?${passportClause} RETURNING *, expires_at > now() AS live`,
    bindings,
  );
  return result.rows[0];
}

/** Challenges nobody answered: kept a while past expiry only so that a late answer hears "expired", not "unknown". */
export async function purgeStaleChallenges(db: Knex, graceSeconds: number): Promise<number> {
  return db('webauthn_challenges')
    .where('expires_at', '<', db.raw('now() - make_interval(secs => ?)', [graceSeconds]))
    .del();
}

/** As stored: pg returns a bigint as a string. */
type StoredPasskey = Omit<PasskeyRow, 'counter'> & { counter: string | number };
const passkeyFromRow = (row: StoredPasskey): PasskeyRow => ({ ...row, counter: Number(row.counter) });

export async function findPasskey(db: Knex, credentialId: string): Promise<PasskeyRow | undefined> {
  const row = await db<StoredPasskey>('webauthn_credentials').where({ credential_id: credentialId }).first();
  return row ? passkeyFromRow(row) : undefined;
}

/** The passkey, locked until the transaction ends: two sign-ins with it are judged one after the other. */
export async function lockPasskey(trx: Knex.Transaction, credentialId: string): Promise<PasskeyRow | undefined> {
  const row = await trx<StoredPasskey>('webauthn_credentials')
    .where({ credential_id: credentialId })
    .forUpdate()
    .first();
  return row ? passkeyFromRow(row) : undefined;
}

export async function activePasskeysOf(db: Knex, passportId: string): Promise<PasskeyRow[]> {
  const rows = await db<StoredPasskey>('webauthn_credentials')
    .where({ passport_id: passportId, status: 'active' })
    .orderBy('created_at');
  return rows.map(passkeyFromRow);
}

/** Undefined when a passkey with this credential id is already registered. */
export async function insertPasskey(db: Knex, passkey: NewPasskey): Promise<PasskeyRow | undefined> {
  const [row] = await db<StoredPasskey>('webauthn_credentials')
    .insert({ ...passkey, status: 'active', created_at: new Date() })
    .onConflict('credential_id')
    .ignore()
    .returning('*');
  return row ? passkeyFromRow(row) : undefined;
}

export async function recordPasskeyUse(trx: Knex.Transaction, credentialId: string, counter: number): Promise<void> {
  await trx('webauthn_credentials')
    .where({ credential_id: credentialId })
    .update({ counter, last_used_at: trx.fn.now() });
}

/** Revokes an active passkey; false when it was not active (already revoked or rotated away). */
export async function revokePasskey(
  db: Knex,
  credentialId: string,
  reason: PasskeyRevokeReason,
  replacedBy: string | null = null,
): Promise<boolean> {
  const updated = await db('webauthn_credentials')
    .where({ credential_id: credentialId, status: 'active' })
    .update({ status: 'revoked', revoked_at: db.fn.now(), revoke_reason: reason, replaced_by: replacedBy });
  return updated === 1;
}

export async function findPassportIdentity(db: Knex, passportId: string): Promise<PassportIdentity | undefined> {
  const row: PassportIdentity | undefined = await db('passports')
    .where({ passport_id: passportId })
    .first('passport_id', 'did', 'name', 'organization_id', 'status', 'created_at');
  return row;
}

/** The active person in the organization an admin enrolled under this user name, if any. */
export async function findEnrolledPerson(
  db: Knex,
  organizationId: string,
  userName: string,
): Promise<PassportIdentity | undefined> {
  const row: PassportIdentity | undefined = await db('passports')
    .where({ organization_id: organizationId, type: 'individual', status: 'active' })
    .whereRaw("metadata->>'webauthn_user_name' = ?", [userName])
    .first('passport_id', 'did', 'name', 'organization_id', 'status', 'created_at');
  return row;
}

export async function insertIndividualPassport(
  db: Knex,
  passport: { passport_id: string; did: string; name: string; organization_id: string; user_name: string },
): Promise<PassportIdentity> {
  const now = new Date();
  const [row] = await db<
    PassportIdentity & { type: string; metadata: string; capabilities: string[]; updated_at: Date }
  >('passports')
    .insert({
      passport_id: passport.passport_id,
      did: passport.did,
      type: 'individual',
      name: passport.name,
      organization_id: passport.organization_id,
      metadata: JSON.stringify({ webauthn_user_name: passport.user_name }),
      capabilities: [],
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .returning(['passport_id', 'did', 'name', 'organization_id', 'status', 'created_at']);
  return row!;
}
