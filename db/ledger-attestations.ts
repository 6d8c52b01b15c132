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
export async function insertAttestationOnce(
  db: Knex,
  row: Omit<AttestationRow, 'created_at'>,
): Promise<{ row: AttestationRow; created: boolean }> {
  const [inserted] = await db('ledger_attestations')
    .insert(row)
    .onConflict('attestation_id')
    .ignore()
    .returning<AttestationRow[]>('*');
  if (inserted) return { row: inserted, created: true };
  return { row: (await findAttestation(db, row.attestation_id))!, created: false };
}

/**
 * Whether an agent id names an agent of the organization: an agent Passport (by id or DID), a platform agent
 * (by id or URI), or a registered orchestration agent (by id or DID).
 */
export async function isAgentOfOrganization(db: Knex, organizationId: string, agentId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: Array<{ found: boolean }> }>(
    `select exists (select 1 from passports where organization_id = :org and type = 'agent' and (passport_id = :agent or did = :agent))
         or exists (select 1 from platform_agents where organization_id = :org and (agent_id = :agent or agent_uri = :agent))
         or exists (select 1 from agents where organization_id = :org and (agent_id = :agent or did = :agent)) as found`,
    { org: organizationId, agent: agentId },
  );
  return rows[0]!.found;
}
