import type { Knex } from 'knex';
import type { LinkStatus } from '../domain/people/verification';

/** An e-mail verification that links a Passport to its organization's employee record. */
export interface OrganizationLinkRow {
  link_id: string;
  organization_id: string;
  employee_id: string;
  passport_id: string;
  email: string;
  code_hash: string;
  hmac_key_id: string;
  attempts: number;
  status: LinkStatus;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  attestation_id: string | null;
}

/** A new verification for the Passport; the one in flight before it, if any, is superseded. */
export async function insertLink(
  trx: Knex.Transaction,
  link: Omit<OrganizationLinkRow, 'attempts' | 'status' | 'ended_at' | 'attestation_id'>,
): Promise<void> {
  await trx('organization_links')
    .where({ passport_id: link.passport_id, status: 'pending' })
    .update({ status: 'superseded', ended_at: link.created_at });
  await trx('organization_links').insert({ ...link, attempts: 0, status: 'pending' });
}

/** The Passport's latest verification, whatever became of it. */
export async function latestLink(db: Knex, passportId: string): Promise<OrganizationLinkRow | undefined> {
  return db('organization_links')
    .where({ passport_id: passportId })
    .whereNot({ status: 'superseded' })
    .orderBy('created_at', 'desc')
    .first<OrganizationLinkRow | undefined>();
}

/**
 * Counts one attempt, in one conditional write that only a pending, unexpired verification with attempts left
 * accepts (so concurrent guesses never get a sixth); the row as counted, locked until the transaction ends.
 */
export async function countAttempt(
  trx: Knex.Transaction,
  linkId: string,
  maxAttempts: number,
): Promise<OrganizationLinkRow | undefined> {
  const [row] = await trx('organization_links')
    .where({ link_id: linkId, status: 'pending' })
    .andWhere('attempts', '<', maxAttempts)
    .andWhere('expires_at', '>', trx.fn.now())
    .increment('attempts', 1)
    .returning<OrganizationLinkRow[]>('*');
  return row;
}

export async function endLink(
  trx: Knex.Transaction,
  linkId: string,
  ending: { status: LinkStatus; at: Date; attestation_id?: string },
): Promise<void> {
  await trx('organization_links')
    .where({ link_id: linkId })
    .update({ status: ending.status, ended_at: ending.at, attestation_id: ending.attestation_id ?? null });
}
