import type { Knex } from 'knex';
import { Consent } from '../contracts/aggregates/consent';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

const consentRow = rowOf(Consent);
const COLUMNS = consentRow.columns;

/** Appends one consent; the table refuses any update or delete (migrations/20261129000200_people.ts). */
export async function insertConsent(trx: Knex.Transaction, consent: Consent): Promise<void> {
  // A string is evidence too: stored as a JSON string, which a jsonb column takes only serialized.
  const evidence = consent.capability_evidence === null ? null : JSON.stringify(consent.capability_evidence);
  await trx('passport_consents').insert({ ...consentRow.of(consent), capability_evidence: evidence });
}

export async function listConsents(db: Knex, passportId: string, page: PageRequest): Promise<Page<Consent>> {
  return paginate<Consent>(db('passport_consents').select(COLUMNS).where({ passport_id: passportId }), page);
}
