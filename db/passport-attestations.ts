import type { Knex } from 'knex';
import { Attestation } from '../contracts/aggregates/attestation';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

const attestationRow = rowOf(Attestation);
const COLUMNS = attestationRow.columns;

export async function insertAttestation(trx: Knex.Transaction, attestation: Attestation): Promise<void> {
  await trx('passport_attestations').insert(attestationRow.of(attestation));
}

/** Raises a Passport's identity tier to at least `tier` (never lowers it). */
export async function raiseIdentityTier(trx: Knex.Transaction, passportId: string, tier: number): Promise<void> {
  await trx('passports')
    .where({ passport_id: passportId })
    .update({ identity_tier: trx.raw('greatest(identity_tier, ?)', [tier]), updated_at: trx.fn.now() });
}

export async function listAttestations(db: Knex, passportId: string, page: PageRequest): Promise<Page<Attestation>> {
  return paginate<Attestation>(db('passport_attestations').select(COLUMNS).where({ passport_id: passportId }), page);
}

export async function findAttestation(db: Knex, passportId: string, attestationId: string) {
  return db('passport_attestations')
    .where({ passport_id: passportId, attestation_id: attestationId })
    .first<Attestation | undefined>(COLUMNS);
}
