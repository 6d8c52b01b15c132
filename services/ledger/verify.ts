/**
 * Offline verification with nothing but the log's verifier key: of an inclusion bundle, a consistency
 * bundle, or a whole exported log against its signed checkpoints (verify-export). No database, no network.
 */
import { canonicalJson, CanonicalJsonError } from '../../domain/common/canonical-json';
import { parseCheckpointText, type Checkpoint } from '../../domain/ledger/checkpoint';
import { verifyConsistency, verifyInclusion } from '../../domain/ledger/merkle';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { transactionIdFor } from '../../db/ledger';
import {
  CONSISTENCY_BUNDLE_FORMAT,
  INCLUSION_BUNDLE_FORMAT,
  type BundledRecord,
  type ConsistencyBundle,
  type InclusionBundle,
} from './formats';
import { openCompactJws } from '../../lib/jws';
import { leafHashOfBody, rfc6962 } from './rfc6962';
import { NoteError, openNote, type NoteVerifier } from '../../lib/signed-note';

export interface VerifyReport {
  ok: boolean;
  /** What was established, one line each. */
  verified: string[];
  /** What failed, one line each; empty when ok. */
  problems: string[];
}

// The verifiers take files as read, not as the formats they check: any format, and arrays that may be missing.
type InclusionBundleAsRead = Omit<InclusionBundle, 'format' | 'records'> & {
  format: unknown;
  records?: Array<Omit<BundledRecord, 'inclusion_proof'> & { inclusion_proof?: string[] }>;
};
type ConsistencyBundleAsRead = Omit<ConsistencyBundle, 'format' | 'proof'> & { format: unknown; proof?: string[] };

export const b64 = (value: string) => Buffer.from(value, 'base64');

/** The checkpoint in a signed note, once its signature by the log's key checks out. */
export function openCheckpoint(note: string, verifier: NoteVerifier): Checkpoint {
  const checkpoint = parseCheckpointText(openNote(note, verifier));
  if (!checkpoint) throw new NoteError('the signed note is not a checkpoint (origin, tree size, root hash)');
  if (checkpoint.origin !== verifier.name)
    throw new NoteError(`the checkpoint is for origin ${checkpoint.origin}, not ${verifier.name}`);
  return checkpoint;
}

/** Why parsed JSON text is not its own RFC 8785 canonical form (it differs, or it has none: a lone surrogate, say), or undefined. */
function canonicalFormProblem(value: unknown, text: string): string | undefined {
  try {
    return canonicalJson(value) === text ? undefined : 'its canonical form differs';
  } catch (error) {
    if (error instanceof CanonicalJsonError) return `it has none: ${error.message}`;
    throw error;
  }
}

/**
 * What a leaf body must be: canonical JSON (so its hash is the only one it can have) of a record whose
 * transaction id is derived from its subject and step (so an id cannot be moved to another record).
 */
export function bodyProblem(body: string, transactionId: string): string | undefined {
  let entry: ProvenanceEntry;
  try {
    entry = JSON.parse(body) as ProvenanceEntry;
  } catch {
    return 'its body is not JSON';
  }
  const notCanonical = canonicalFormProblem(entry, body);
  if (notCanonical) return `its body is not in RFC 8785 canonical form (${notCanonical})`;
  if (typeof entry.subject_id !== 'string' || typeof entry.step_id !== 'string')
    return 'its body has no subject_id and step_id';
  if (transactionIdFor(entry.subject_id, entry.step_id) !== transactionId)
    return `its transaction id is not the one of ${entry.subject_id} / ${entry.step_id}`;
  return undefined;
}

const CREDENTIAL_WORDS: Record<string, string | undefined> = {
  passkey: 'passkey',
  device_key: 'device key',
  delegation_token: 'delegation token',
};

/**
 * Who decided, when a verified record is a person's act: their DID, Passport and the credential that
 * authenticated them (and the agent, when a delegate acted for them). Read from the verified body only.
 */
export function decidedBy(body: string): string | undefined {
  const { action, actor } = JSON.parse(body) as Partial<ProvenanceEntry>;
  if (actor?.type !== 'human' || !actor.credential || !actor.did) return undefined;
  const credential = `${CREDENTIAL_WORDS[actor.credential.type] ?? actor.credential.type} ${actor.credential.id}`;
  const delegate = actor.agent_id ? `, by their delegate ${actor.agent_id}` : '';
  return `${String(action)} by ${actor.did} (Passport ${actor.passport_id ?? 'unnamed'}, ${credential}${delegate})`;
}

export function report(verified: string[], problems: string[]): VerifyReport {
  return { ok: problems.length === 0 && verified.length > 0, verified, problems };
}

export function verifyInclusionBundle(bundle: InclusionBundleAsRead, verifier: NoteVerifier): VerifyReport {
  const verified: string[] = [];
  const problems: string[] = [];
  if (bundle.format !== INCLUSION_BUNDLE_FORMAT)
    return report([], [`not an inclusion bundle (${String(bundle.format)})`]);
  let checkpoint: Checkpoint;
  try {
    checkpoint = openCheckpoint(bundle.checkpoint, verifier);
  } catch (error) {
    return report([], [`checkpoint: ${(error as Error).message}`]);
  }
  verified.push(`checkpoint signed by ${verifier.name}: ${checkpoint.treeSize} leaves, root ${checkpoint.rootHash}`);
  // Sizes and roots come from the signed checkpoint only; the bundle's copies are for reading.
  const root = b64(checkpoint.rootHash);
  if (!Array.isArray(bundle.records) || bundle.records.length === 0) problems.push('the bundle holds no records');
  for (const record of bundle.records ?? []) {
    const label = `record ${record.transaction_id} (leaf ${record.leaf_index})`;
    const problem = bodyProblem(record.body, record.transaction_id);
    if (problem) {
      problems.push(`${label}: ${problem}`);
      continue;
    }
    const leafHash = leafHashOfBody(record.body);
    if (
      !verifyInclusion(
        rfc6962,
        record.leaf_index,
        checkpoint.treeSize,
        leafHash,
        (record.inclusion_proof ?? []).map(b64),
        root,
      )
    ) {
      problems.push(`${label}: its inclusion proof does not lead to the checkpoint's root`);
      continue;
    }
    const decided = decidedBy(record.body);
    verified.push(`${label}: included in the tree of ${checkpoint.treeSize} leaves${decided ? `; ${decided}` : ''}`);
  }
  return report(verified, problems);
}

export function verifyConsistencyBundle(bundle: ConsistencyBundleAsRead, verifier: NoteVerifier): VerifyReport {
  if (bundle.format !== CONSISTENCY_BUNDLE_FORMAT)
    return report([], [`not a consistency bundle (${String(bundle.format)})`]);
  try {
    if (bundle.first.checkpoint === null && bundle.first.tree_size !== 0)
      return report([], ['the first tree has leaves but no checkpoint']);
    const second = openCheckpoint(bundle.second.checkpoint, verifier);
    const first =
      bundle.first.checkpoint === null
        ? { treeSize: 0, rootHash: Buffer.from(rfc6962.emptyRoot()).toString('base64') }
        : openCheckpoint(bundle.first.checkpoint, verifier);
    if (
      !verifyConsistency(
        rfc6962,
        first.treeSize,
        second.treeSize,
        (bundle.proof ?? []).map(b64),
        b64(first.rootHash),
        b64(second.rootHash),
      )
    ) {
      return report(
        [],
        [`the tree of ${second.treeSize} leaves does not extend the tree of ${first.treeSize}: the log was rewritten`],
      );
    }
    return report(
      [
        `the tree of ${second.treeSize} leaves extends the tree of ${first.treeSize} (both checkpoints signed by ${verifier.name})`,
      ],
      [],
    );
  } catch (error) {
    return report([], [`checkpoint: ${(error as Error).message}`]);
  }
}

/** An attestation as POST /v1/provenance/attestations answers it. */
export interface AttestationDocument {
  attestationId: string;
  agentId: string;
  organizationId: string;
  recordHash: string;
  timestamp: string;
  signature: string;
}

/** Whether the log's key signed this attestation, and the signed statement says what the document says. */
export function verifyAttestation(
  document: Omit<AttestationDocument, 'signature'> & { signature?: string | null },
  verifier: NoteVerifier,
): VerifyReport {
  const opened = openCompactJws(document.signature ?? '', verifier);
  if (!opened) return report([], ['the attestation’s signature is not an EdDSA JWS by the log’s key']);
  let statement: Record<string, unknown>;
  try {
    statement = JSON.parse(opened.payload) as Record<string, unknown>;
  } catch {
    return report([], ['the signed statement is not JSON']);
  }
  const problems: string[] = [];
  const notCanonical = canonicalFormProblem(statement, opened.payload);
  if (notCanonical) problems.push(`the signed statement is not in canonical form (${notCanonical})`);
  if (statement.origin !== verifier.name)
    problems.push(`the statement is by ${String(statement.origin)}, not ${verifier.name}`);
  const claims: Array<[string, unknown, unknown]> = [
    ['attestationId', document.attestationId, statement.attestation_id],
    ['agentId', document.agentId, statement.agent_id],
    ['organizationId', document.organizationId, statement.organization_id],
    ['recordHash', document.recordHash, statement.record_hash],
    ['timestamp', document.timestamp, statement.claimed_at],
  ];
  for (const [name, shown, signed] of claims)
    if (shown !== signed)
      problems.push(`${name} ${JSON.stringify(shown)} is not what was signed (${JSON.stringify(signed)})`);
  return report(
    [
      `attestation ${document.attestationId} signed by ${verifier.name}: ${document.agentId} of ${document.organizationId} attested record ${document.recordHash}`,
    ],
    problems,
  );
}
