import { appendLeaves, bytesEqual, EMPTY_EDGE, rootOf, type TreeEdge } from '../../domain/ledger/merkle';
import type { NoteVerifier } from '../../lib/signed-note';
import { EXPORT_FORMAT, type ExportLine } from './formats';
import { leafHashOfBody, rfc6962 } from './rfc6962';
import { b64, bodyProblem, decidedBy, openCheckpoint, report, type VerifyReport } from './verify';

type ExportLineAsRead = ExportLine | { format: unknown };
type LeafLine = Extract<ExportLine, { leaf: unknown }>['leaf'];
type WithheldLeafLine = Extract<ExportLine, { withheld_leaf: unknown }>['withheld_leaf'];
type CheckpointLine = Extract<ExportLine, { checkpoint: unknown }>['checkpoint'];

/** Whether to read on after a line, or stop: a line that makes the rest unreadable ends the check. */
type Next = 'continue' | 'stop';

/** The checkpoints the caller kept from earlier, each of which the log must still extend. */
class TrustedCheckpoints {
  private readonly kept = new Map<number, { root: Buffer; seen: boolean }>();

  constructor(
    notes: readonly string[],
    verifier: NoteVerifier,
    private readonly verified: string[],
    private readonly problems: string[],
  ) {
    for (const note of notes) {
      try {
        const checkpoint = openCheckpoint(note, verifier);
        this.kept.set(checkpoint.treeSize, { root: b64(checkpoint.rootHash), seen: false });
      } catch (error) {
        problems.push(`trusted checkpoint: ${(error as Error).message}`);
      }
    }
  }

  /** Checks the tree so far against a kept checkpoint of its size, if there is one. */
  check(edge: TreeEdge): void {
    const kept = this.kept.get(edge.size);
    if (!kept) return;
    kept.seen = true;
    if (bytesEqual(rootOf(rfc6962, edge), kept.root))
      this.verified.push(`the checkpoint you kept at ${edge.size} leaves is a prefix of this log`);
    else
      this.problems.push(
        `the log's first ${edge.size} leaves differ from the checkpoint you kept: the log was rewritten`,
      );
  }

  /** Once the log is read: kept checkpoints larger than it. */
  checkNoneUnseen(): void {
    for (const [size, kept] of this.kept) {
      if (!kept.seen)
        this.problems.push(
          `the log has fewer than the ${size} leaves of a checkpoint you kept: it was truncated or rewritten`,
        );
    }
  }
}

/** The tree recomputed from an export's lines as they are read, and what was found on the way. */
class ExportVerification {
  readonly verified: string[] = [];
  readonly problems: string[] = [];
  private readonly trusted: TrustedCheckpoints;
  private edge: TreeEdge = EMPTY_EDGE;
  private header = false;
  private ended: { tree_size: number; checkpoints: number } | undefined;
  private checkpoints = 0;
  private checkpointLines = 0;
  private previousSize = 0;
  private lastBlock = 0;
  /** Leaves of other organizations, given as their hashes: in the tree, but their records unread. */
  private withheld = 0;
  /** The people's acts among the leaves, reported once the log they are in has verified. */
  private readonly decisions: string[] = [];

  constructor(
    private readonly verifier: NoteVerifier,
    trusted: readonly string[],
  ) {
    this.trusted = new TrustedCheckpoints(trusted, verifier, this.verified, this.problems);
    this.trusted.check(this.edge);
  }

  readLine(lineNumber: number, text: string): Next {
    if (text.trim() === '') return 'continue';
    let line: ExportLineAsRead;
    try {
      line = JSON.parse(text) as ExportLineAsRead;
    } catch {
      this.problems.push(`line ${lineNumber}: not JSON`);
      return 'stop';
    }
    if ('format' in line) {
      if (line.format !== EXPORT_FORMAT || this.header)
        this.problems.push(`line ${lineNumber}: unexpected header ${String(line.format)}`);
      this.header = true;
      return 'continue';
    }
    if (!this.header) {
      this.problems.push(`line ${lineNumber}: the export has no ${EXPORT_FORMAT} header`);
      return 'stop';
    }
    if (this.ended) {
      this.problems.push(`line ${lineNumber}: lines after the end line`);
      return 'stop';
    }
    if ('end' in line) {
      this.ended = line.end;
      return 'continue';
    }
    if ('leaf' in line) return this.leaf(lineNumber, line.leaf);
    if ('withheld_leaf' in line) return this.withheldLeaf(lineNumber, line.withheld_leaf);
    if ('checkpoint' in line) return this.checkpoint(line.checkpoint);
    this.problems.push(`line ${lineNumber}: neither a leaf nor a checkpoint`);
    return 'continue';
  }

  /** Whether a leaf's index is the next one; a gap makes every later root meaningless. */
  private inOrder(lineNumber: number, index: number): boolean {
    if (index === this.edge.size) return true;
    this.problems.push(
      `line ${lineNumber}: leaf ${index} where leaf ${this.edge.size} was due: the log has a gap or is out of order`,
    );
    return false;
  }

  private append(leafHash: Uint8Array): void {
    this.edge = appendLeaves(rfc6962, this.edge, [leafHash]).edge;
    this.trusted.check(this.edge);
  }

  private leaf(lineNumber: number, leaf: LeafLine): Next {
    if (!this.inOrder(lineNumber, leaf.index)) return 'stop';
    const problem = bodyProblem(leaf.body, leaf.transaction_id);
    if (problem) this.problems.push(`leaf ${leaf.index} (${leaf.transaction_id}): ${problem}`);
    const decided = problem ? undefined : decidedBy(leaf.body);
    if (decided) this.decisions.push(`leaf ${leaf.index} (${leaf.transaction_id}): ${decided}`);
    this.append(leafHashOfBody(leaf.body));
    return 'continue';
  }

  private withheldLeaf(lineNumber: number, { index, leaf_hash }: WithheldLeafLine): Next {
    if (!this.inOrder(lineNumber, index)) return 'stop';
    const hash = typeof leaf_hash === 'string' ? b64(leaf_hash) : Buffer.alloc(0);
    if (hash.length !== 32) {
      this.problems.push(`line ${lineNumber}: withheld leaf ${index} has no SHA-256 leaf hash`);
      return 'stop';
    }
    this.withheld += 1;
    this.append(hash);
    return 'continue';
  }

  private checkpoint({ block_number, note }: CheckpointLine): Next {
    const { edge } = this;
    try {
      const checkpoint = openCheckpoint(note, this.verifier);
      if (block_number <= this.lastBlock)
        this.problems.push(`checkpoint of block ${block_number} comes after block ${this.lastBlock}`);
      if (checkpoint.treeSize !== edge.size)
        this.problems.push(
          `checkpoint of block ${block_number} signs ${checkpoint.treeSize} leaves, but ${edge.size} precede it`,
        );
      else if (!bytesEqual(rootOf(rfc6962, edge), b64(checkpoint.rootHash))) {
        this.problems.push(
          `checkpoint of block ${block_number}: the leaves before it do not hash to its signed root: a record was changed (among leaves ${this.previousSize}–${edge.size - 1}, if the checkpoints before it verified)`,
        );
      } else this.checkpoints += 1;
    } catch (error) {
      this.problems.push(`checkpoint of block ${block_number}: ${(error as Error).message}`);
    }
    this.lastBlock = block_number;
    this.checkpointLines += 1;
    this.previousSize = edge.size;
    return 'continue';
  }

  /** What the whole log came to, once every line is read. */
  finish(): VerifyReport {
    const { edge, ended, problems } = this;
    if (this.header && !ended) problems.push('the export has no end line: it was cut short');
    else if (ended && (ended.tree_size !== edge.size || ended.checkpoints !== this.checkpointLines)) {
      problems.push(
        `the end line counts ${ended.tree_size} leaves and ${ended.checkpoints} checkpoints, but ${edge.size} and ${this.checkpointLines} came before it`,
      );
    }
    if (edge.size > this.previousSize)
      problems.push(`the last ${edge.size - this.previousSize} leaves are under no checkpoint`);
    this.trusted.checkNoneUnseen();
    if (this.header && problems.length === 0) {
      this.verified.push(...this.decisions);
      const leaves =
        this.withheld > 0
          ? `${edge.size} leaves (${this.withheld} of other organizations, withheld: checked by hash only)`
          : `${edge.size} leaves`;
      this.verified.unshift(
        `${leaves} and ${this.checkpoints} checkpoints signed by ${this.verifier.name}; the last root is ${Buffer.from(rootOf(rfc6962, edge)).toString('base64')}`,
      );
    }
    return report(this.verified, problems);
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
  const verification = new ExportVerification(verifier, options.trusted ?? []);
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber += 1;
    if (verification.readLine(lineNumber, text) === 'stop') break;
  }
  return verification.finish();
}
