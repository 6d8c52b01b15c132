import type { Knex } from 'knex';
import { RecoveryGuardian } from '../contracts/aggregates/recovery-guardian';
import { rowOf } from '../lib/shape';

/** As the driver reads it: unset fields null, instants as Date. */
type GuardianRow = Record<keyof RecoveryGuardian, unknown>;

const guardianRow = rowOf(RecoveryGuardian).of;

/** The guardian as the service holds it: instants as ISO strings, unset fields absent. */
function guardianOf(row: GuardianRow): RecoveryGuardian {
  const entries = Object.entries(row).filter(([, value]) => value !== null);
  return Object.fromEntries(
    entries.map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  ) as unknown as RecoveryGuardian;
}

export async function insertGuardian(trx: Knex.Transaction, guardian: RecoveryGuardian): Promise<void> {
  await trx('recovery_guardians').insert(guardianRow(guardian));
}

/** Every guardian row of the Passport (invitations, removals and expired ones included), oldest first. */
export async function guardiansOf(db: Knex, passportId: string): Promise<RecoveryGuardian[]> {
  const rows = (await db('recovery_guardians')
    .where({ passport_id: passportId })
    .orderBy('invited_at')) as GuardianRow[];
  return rows.map(guardianOf);
}

/** One guardian of the Passport, within the organization; locked when a transaction is given. */
export async function findGuardian(
  db: Knex,
  organizationId: string,
  passportId: string,
  guardianId: string,
): Promise<RecoveryGuardian | undefined> {
  const query = db('recovery_guardians').where({
    organization_id: organizationId,
    passport_id: passportId,
    guardian_id: guardianId,
  });
  if (db.isTransaction) void query.forUpdate();
  const row = (await query.first()) as GuardianRow | undefined;
  return row ? guardianOf(row) : undefined;
}

/** Writes the changed fields of a guardian. */
export async function updateGuardian(
  trx: Knex.Transaction,
  guardianId: string,
  changes: Partial<RecoveryGuardian>,
): Promise<void> {
  await trx('recovery_guardians').where({ guardian_id: guardianId }).update(changes);
}

/** The e-mail addresses and phone numbers of these guardians, for notifications (never in a workflow's history). */
export async function guardianContacts(
  db: Knex,
  guardianIds: readonly string[],
): Promise<Pick<RecoveryGuardian, 'guardian_id' | 'recovery_method' | 'contact'>[]> {
  return db('recovery_guardians')
    .whereIn('guardian_id', guardianIds)
    .select('guardian_id', 'recovery_method', 'contact');
}

/** A person's Passport of the organization, by DID: who may be named a guardian. */
export async function findPersonByDid(
  db: Knex,
  organizationId: string,
  did: string,
): Promise<{ passport_id: string; did: string } | undefined> {
  return db('passports')
    .where({ organization_id: organizationId, did, type: 'individual', status: 'active' })
    .first('passport_id', 'did');
}
