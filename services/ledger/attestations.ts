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

interface AttestInput {
  recordHash: string;
  agentId: string;
  organizationId: string;
  claimedAt: string;
  attestedBy: string;
  callerOrganizationId: string;
  now: Date;
}

/** The record to attest and the key to sign with, once the caller may attest it as that agent. */
async function findAttestable(
  db: Knex,
  input: AttestInput,
  recordHash: string,
  secretKeys: SecretKeys | undefined,
): Promise<{ ok: true; record: ProvenanceRecord; key: LedgerKey } | Extract<AttestOutcome, { ok: false }>> {
  if (input.organizationId !== input.callerOrganizationId)
    return { ok: false, code: 'attestation_organization_mismatch' };
  if (!(await isAgentOfOrganization(db, input.callerOrganizationId, input.agentId)))
    return { ok: false, code: 'attestation_agent_not_found' };
  // Only the caller's organization's records: another tenant's hash is not found, exactly as an unknown one.
  const [record, key] = await Promise.all([
    findProvenanceRecordByLeafHash(db, input.callerOrganizationId, Buffer.from(recordHash, 'hex')),
    loadLedgerKey(db, secretKeys),
  ]);
  if (!key) return { ok: false, code: 'no_key' };
  if (!record) return { ok: false, code: 'record_not_found' };
  return { ok: true, record, key };
}

/**
 * Signs an attestation over a record's leaf with the log's key and records it, in one transaction: the
 * attestation row and its own provenance record (so attestations are in the log too). What the log signs is
 * bound to the caller: the organization must be the caller's, and the agent one of that organization's.
 */
export async function attestRecord(db: Knex, input: AttestInput, secretKeys?: SecretKeys): Promise<AttestOutcome> {
  const recordHash = input.recordHash.toLowerCase();
  const attestable = await findAttestable(db, input, recordHash, secretKeys);
  if (!attestable.ok) return attestable;
  const { record, key } = attestable;
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

  const statement = statementOf(record, key, {
    attestationId,
    agentId: input.agentId,
    organizationId: input.organizationId,
    claimedAt,
    attestedAt: input.now.toISOString(),
    attestedBy: input.attestedBy,
  });
  const jws = signCompactJws(canonicalJson(statement), { typ: ATTESTATION_JWS_TYPE, kid: key.verifierKey }, key.signer);
  return storeAttestation(db, { statement, jws, keyId: key.keyId, recordHash }, input.callerOrganizationId);
}

/** The signed statement's row and its own provenance record, in one transaction; a row already there is kept. */
async function storeAttestation(
  db: Knex,
  signed: { statement: AttestationStatement; jws: string; keyId: string; recordHash: string },
  callerOrganizationId: string,
): Promise<AttestOutcome> {
  const { statement } = signed;
  return db.transaction(async (trx) => {
    await appendProvenance(trx, {
      organization_id: callerOrganizationId,
      entry: {
        subject_id: statement.attestation_id,
        step_id: 'attestation',
        timestamp: statement.attested_at,
        actor: { type: 'ai_agent', agent_id: statement.agent_id },
        action: 'provenance_attested',
        input_data: {
          record_hash: signed.recordHash,
          organization_id: statement.organization_id,
          claimed_at: statement.claimed_at,
        },
        output_data: {
          attested_transaction_id: statement.transaction_id,
          attested_block_number: statement.block_number,
        },
        reasoning: `${statement.agent_id} of ${statement.organization_id} attested record ${statement.transaction_id}`,
      },
    });
    const stored = await insertAttestationOnce(trx, {
      attestation_id: statement.attestation_id,
      transaction_id: statement.transaction_id,
      agent_id: statement.agent_id,
      organization_id: statement.organization_id,
      claimed_at: new Date(statement.claimed_at),
      statement: canonicalJson(statement),
      jws: signed.jws,
      key_id: signed.keyId,
      attested_by: statement.attested_by,
    });
    return {
      ok: true as const,
      created: stored.created,
      attestation: (await toAttestation(trx, stored.row, callerOrganizationId))!,
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
