/**
 * Offline verification with nothing but the log's verifier key: of an inclusion bundle, a consistency
 * bundle, or a whole exported log against its signed checkpoints. No database, no network.
 */
import { canonicalJson, CanonicalJsonError } from '../../domain/common/canonical-json';
import { parseCheckpointText, type Checkpoint } from '../../domain/ledger/checkpoint';
import {
  appendLeaves,
  bytesEqual,
  EMPTY_EDGE,
  rootOf,
  verifyConsistency,
  verifyInclusion,
  type TreeEdge,
} from '../../domain/ledger/merkle';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { transactionIdFor } from '../../db/ledger';
import {
  CONSISTENCY_BUNDLE_FORMAT,
  EXPORT_FORMAT,
  INCLUSION_BUNDLE_FORMAT,
  type BundledRecord,
  type ConsistencyBundle,
  type ExportLine,
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
type ExportLineAsRead = ExportLine | { format: unknown };

const b64 = (value: string) => Buffer.from(value, 'base64');

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
function bodyProblem(body: string, transactionId: string): string | undefined {
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

function report(verified: string[], problems: string[]): VerifyReport {
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

/**
 * Verifies an exported log line by line: every leaf body canonical and bound to its transaction id (a
 * withheld leaf, another organization's record, adds its hash to the tree unread), leaf indexes gapless
 * from 0, every checkpoint signed by the key and equal to the tree recomputed from the leaves before it
 * (which also makes the checkpoints consistent with one another), and every checkpoint the caller kept
 * from earlier (`trusted`) still a prefix of the log.
 */
export async function verifyExport(
  lines: AsyncIterable<string>,
  verifier: NoteVerifier,
  options: { trusted?: string[] } = {},
): Promise<VerifyReport> {
  const verified: string[] = [];
  const problems: string[] = [];
  const trusted = new Map<number, { root: Buffer; seen: boolean }>();
  for (const note of options.trusted ?? []) {
    try {
      const checkpoint = openCheckpoint(note, verifier);
      trusted.set(checkpoint.treeSize, { root: b64(checkpoint.rootHash), seen: false });
    } catch (error) {
      problems.push(`trusted checkpoint: ${(error as Error).message}`);
    }
  }
  const checkTrusted = (edge: TreeEdge) => {
    const kept = trusted.get(edge.size);
    if (!kept) return;
    kept.seen = true;
    if (bytesEqual(rootOf(rfc6962, edge), kept.root))
      verified.push(`the checkpoint you kept at ${edge.size} leaves is a prefix of this log`);
    else
      problems.push(`the log's first ${edge.size} leaves differ from the checkpoint you kept: the log was rewritten`);
  };

  let edge: TreeEdge = EMPTY_EDGE;
  let header = false;
  let ended: { tree_size: number; checkpoints: number } | undefined;
  let checkpoints = 0;
  let checkpointLines = 0;
  let previousSize = 0;
  let lastBlock = 0;
  let lineNumber = 0;
  /** Leaves of other organizations, given as their hashes: in the tree, but their records unread. */
  let withheld = 0;
  /** The people's acts among the leaves, reported once the log they are in has verified. */
  const decisions: string[] = [];
  checkTrusted(edge);
  for await (const text of lines) {
    lineNumber += 1;
    if (text.trim() === '') continue;
    let line: ExportLineAsRead;
    try {
      line = JSON.parse(text) as ExportLineAsRead;
    } catch {
      problems.push(`line ${lineNumber}: not JSON`);
      break;
    }
    if ('format' in line) {
      if (line.format !== EXPORT_FORMAT || header)
        problems.push(`line ${lineNumber}: unexpected header ${String(line.format)}`);
      header = true;
      continue;
    }
    if (!header) {
      problems.push(`line ${lineNumber}: the export has no ${EXPORT_FORMAT} header`);
      break;
    }
    if (ended) {
      problems.push(`line ${lineNumber}: lines after the end line`);
      break;
    }
    if ('end' in line) {
      ended = line.end;
      continue;
    }
    if ('leaf' in line) {
      const { leaf } = line;
      if (leaf.index !== edge.size) {
        problems.push(
          `line ${lineNumber}: leaf ${leaf.index} where leaf ${edge.size} was due: the log has a gap or is out of order`,
        );
        break;
      }
      const problem = bodyProblem(leaf.body, leaf.transaction_id);
      if (problem) problems.push(`leaf ${leaf.index} (${leaf.transaction_id}): ${problem}`);
      const decided = problem ? undefined : decidedBy(leaf.body);
      if (decided) decisions.push(`leaf ${leaf.index} (${leaf.transaction_id}): ${decided}`);
      edge = appendLeaves(rfc6962, edge, [leafHashOfBody(leaf.body)]).edge;
      checkTrusted(edge);
      continue;
    }
    if ('withheld_leaf' in line) {
      const { index, leaf_hash } = line.withheld_leaf;
      if (index !== edge.size) {
        problems.push(
          `line ${lineNumber}: leaf ${index} where leaf ${edge.size} was due: the log has a gap or is out of order`,
        );
        break;
      }
      const hash = typeof leaf_hash === 'string' ? b64(leaf_hash) : Buffer.alloc(0);
      if (hash.length !== 32) {
        problems.push(`line ${lineNumber}: withheld leaf ${index} has no SHA-256 leaf hash`);
        break;
      }
      withheld += 1;
      edge = appendLeaves(rfc6962, edge, [hash]).edge;
      checkTrusted(edge);
      continue;
    }
    if ('checkpoint' in line) {
      const { block_number, note } = line.checkpoint;
      try {
        const checkpoint = openCheckpoint(note, verifier);
        if (block_number <= lastBlock)
          problems.push(`checkpoint of block ${block_number} comes after block ${lastBlock}`);
        if (checkpoint.treeSize !== edge.size)
          problems.push(
            `checkpoint of block ${block_number} signs ${checkpoint.treeSize} leaves, but ${edge.size} precede it`,
          );
        else if (!bytesEqual(rootOf(rfc6962, edge), b64(checkpoint.rootHash))) {
          problems.push(
            `checkpoint of block ${block_number}: the leaves before it do not hash to its signed root: a record was changed (among leaves ${previousSize}–${edge.size - 1}, if the checkpoints before it verified)`,
          );
        } else checkpoints += 1;
      } catch (error) {
        problems.push(`checkpoint of block ${block_number}: ${(error as Error).message}`);
      }
      lastBlock = block_number;
      checkpointLines += 1;
      previousSize = edge.size;
      continue;
    }
    problems.push(`line ${lineNumber}: neither a leaf nor a checkpoint`);
  }
  if (header && !ended) problems.push('the export has no end line: it was cut short');
  else if (ended && (ended.tree_size !== edge.size || ended.checkpoints !== checkpointLines)) {
    problems.push(
      `the end line counts ${ended.tree_size} leaves and ${ended.checkpoints} checkpoints, but ${edge.size} and ${checkpointLines} came before it`,
    );
  }
  if (edge.size > previousSize) problems.push(`the last ${edge.size - previousSize} leaves are under no checkpoint`);
  for (const [size, kept] of trusted) {
    if (!kept.seen)
      problems.push(
        `the log has fewer than the ${size} leaves of a checkpoint you kept: it was truncated or rewritten`,
      );
  }
  if (header && problems.length === 0) {
    verified.push(...decisions);
    const leaves =
      withheld > 0
        ? `${edge.size} leaves (${withheld} of other organizations, withheld: checked by hash only)`
        : `${edge.size} leaves`;
    verified.unshift(
      `${leaves} and ${checkpoints} checkpoints signed by ${verifier.name}; the last root is ${Buffer.from(rootOf(rfc6962, edge)).toString('base64')}`,
    );
  }
  return report(verified, problems);
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
