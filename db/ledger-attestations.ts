import type { Knex } from 'knex';

export interface AttestationRow {
  attestation_id: string;
  transaction_id: string;
  agent_id: string;
  organization_id: string;
  claimed_at: Date;
  statement: string;
  jws: string;
  key_id: string;
  attested_by: string;
  created_at: Date;
}

export async function findAttestation(db: Knex, attestationId: string): Promise<AttestationRow | undefined> {
  return db<AttestationRow>('ledger_attestations').where({ attestation_id: attestationId }).first();
}

/** Inserts the attestation unless one with its id exists; returns the one stored either way. */
export async function insertAttestationOnce(db: Knex, row: Omit<AttestationRow, 'created_at'>): Promise<{ row: AttestationRow; created: boolean }> {
  const [inserted] = await db('ledger_attestations').insert(row).onConflict('attestation_id').ignore().returning<AttestationRow[]>('*');
  if (inserted) return { row: inserted, created: true };
  return { row: (await findAttestation(db, row.attestation_id))!, created: false };
}
