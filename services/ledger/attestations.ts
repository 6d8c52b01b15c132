import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance, findProvenanceRecordByLeafHash, type ProvenanceRecord } from '../../db/ledger';
import {
  findAttestation,
  insertAttestationOnce,
  isAgentOfOrganization,
  type AttestationRow,
} from '../../db/ledger-attestations';
import { canonicalJson } from '../../domain/common/canonical-json';
import type { LedgerAnchor } from '../../domain/provenance/records';
import { loadLedgerKey, type LedgerKey } from './keys';
import { signCompactJws } from '../../lib/jws';
import type { SecretKeys } from '../../lib/secret-box';

export const ATTESTATION_TYPE = 'handoff-attestation/v1';
export const ATTESTATION_JWS_TYPE = 'handoff-attestation+jws';

/** What the log signs: that an agent of an organization attested a record, and where the record is in the log. */
export interface AttestationStatement {
  type: typeof ATTESTATION_TYPE;
  attestation_id: string;
  origin: string;
  agent_id: string;
  organization_id: string;
  /** Hex of the record's RFC 6962 leaf hash. */
  record_hash: string;
  transaction_id: string;
  block_number: number;
  /** Null while the record's block is unsealed; its inclusion is proved by the record's bundle. */
  leaf_index: number | null;
  /** The time the agent gave. */
  claimed_at: string;
  /** When the log signed. */
  attested_at: string;
  /** The principal that asked. */
  attested_by: string;
}

export interface Attestation {
  statement: AttestationStatement;
  /** JWS compact serialization (EdDSA with the log's key) of the canonical statement. */
  jws: string;
  ledger_anchor: LedgerAnchor;
}

export type AttestOutcome =
  | { ok: true; created: boolean; attestation: Attestation }
  | {
      ok: false;
      code: 'record_not_found' | 'no_key' | 'attestation_organization_mismatch' | 'attestation_agent_not_found';
    };

/** One attestation per record, agent, organization and claimed time: asking again returns it. */
export function attestationIdFor(input: {
  recordHash: string;
  agentId: string;
  organizationId: string;
  claimedAt: string;
}): string {
  return `att_${createHash('sha256').update(`${input.recordHash}|${input.agentId}|${input.organizationId}|${input.claimedAt}`).digest('hex').slice(0, 32)}`;
}

function statementOf(
  record: ProvenanceRecord,
  key: LedgerKey,
  input: {
    attestationId: string;
    agentId: string;
    organizationId: string;
    claimedAt: string;
    attestedAt: string;
    attestedBy: string;
  },
): AttestationStatement {
  return {
    type: ATTESTATION_TYPE,
    attestation_id: input.attestationId,
    origin: key.origin,
    agent_id: input.agentId,
    organization_id: input.organizationId,
    record_hash: record.hash,
    transaction_id: record.anchor.transaction_id,
    block_number: record.anchor.block_number,
    leaf_index: record.leaf_index,
    claimed_at: input.claimedAt,
    attested_at: input.attestedAt,
    attested_by: input.attestedBy,
  };
}

/** The attestation with its own ledger record; undefined when that record is another organization's. */
async function toAttestation(
  db: Knex,
  row: AttestationRow,
  callerOrganizationId: string,
): Promise<Attestation | undefined> {
  const own = await db('ledger_entries')
    .where({ subject_id: row.attestation_id, step_id: 'attestation', organization_id: callerOrganizationId })
    .first<LedgerAnchor | undefined>('transaction_id', 'block_number');
  if (!own) return undefined;
  return {
    statement: JSON.parse(row.statement) as AttestationStatement,
    jws: row.jws,
    ledger_anchor: { transaction_id: own.transaction_id, block_number: own.block_number },
  };
}

/**
 * Signs an attestation over a record's leaf with the log's key and records it, in one transaction: the
 * attestation row and its own provenance record (so attestations are in the log too). What the log signs is
 * bound to the caller: the organization must be the caller's, and the agent one of that organization's.
 */
export async function attestRecord(
  db: Knex,
  input: {
    recordHash: string;
    agentId: string;
    organizationId: string;
    claimedAt: string;
    attestedBy: string;
    callerOrganizationId: string;
    now: Date;
  },
  secretKeys?: SecretKeys,
): Promise<AttestOutcome> {
  if (input.organizationId !== input.callerOrganizationId)
    return { ok: false, code: 'attestation_organization_mismatch' };
  if (!(await isAgentOfOrganization(db, input.callerOrganizationId, input.agentId)))
    return { ok: false, code: 'attestation_agent_not_found' };
  const recordHash = input.recordHash.toLowerCase();
  // Only the caller's organization's records: another tenant's hash is not found, exactly as an unknown one.
  const [record, key] = await Promise.all([
    findProvenanceRecordByLeafHash(db, input.callerOrganizationId, Buffer.from(recordHash, 'hex')),
    loadLedgerKey(db, secretKeys),
  ]);
  if (!key) return { ok: false, code: 'no_key' };
  if (!record) return { ok: false, code: 'record_not_found' };
  const claimedAt = new Date(input.claimedAt).toISOString();
  const attestationId = attestationIdFor({
    recordHash,
    agentId: input.agentId,
    organizationId: input.organizationId,
    claimedAt,
  });
  const existing = await findAttestation(db, attestationId);
  const earlier = existing && (await toAttestation(db, existing, input.callerOrganizationId));
  if (earlier) return { ok: true, created: false, attestation: earlier };

  const attestedAt = input.now.toISOString();
  const statement = statementOf(record, key, {
    attestationId,
    agentId: input.agentId,
    organizationId: input.organizationId,
    claimedAt,
    attestedAt,
    attestedBy: input.attestedBy,
  });
  const jws = signCompactJws(canonicalJson(statement), { typ: ATTESTATION_JWS_TYPE, kid: key.verifierKey }, key.signer);
  return db.transaction(async (trx) => {
    await appendProvenance(trx, {
      organization_id: input.callerOrganizationId,
      entry: {
        subject_id: attestationId,
        step_id: 'attestation',
        timestamp: attestedAt,
        actor: { type: 'ai_agent', agent_id: input.agentId },
        action: 'provenance_attested',
        input_data: { record_hash: recordHash, organization_id: input.organizationId, claimed_at: claimedAt },
        output_data: {
          attested_transaction_id: record.anchor.transaction_id,
          attested_block_number: record.anchor.block_number,
        },
        reasoning: `${input.agentId} of ${input.organizationId} attested record ${record.anchor.transaction_id}`,
      },
    });
    const stored = await insertAttestationOnce(trx, {
      attestation_id: attestationId,
      transaction_id: record.anchor.transaction_id,
      agent_id: input.agentId,
      organization_id: input.organizationId,
      claimed_at: new Date(claimedAt),
      statement: canonicalJson(statement),
      jws,
      key_id: key.keyId,
      attested_by: input.attestedBy,
    });
    return {
      ok: true as const,
      created: stored.created,
      attestation: (await toAttestation(trx, stored.row, input.callerOrganizationId))!,
    };
  });
}

export async function getAttestation(
  db: Knex,
  organizationId: string,
  attestationId: string,
): Promise<Attestation | undefined> {
  const row = await findAttestation(db, attestationId);
  return row && toAttestation(db, row, organizationId);
}
