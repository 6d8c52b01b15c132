/**
 * The text of a C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint): origin, tree size and base64
 * root hash, one per line, each line ending in a newline. The signature around it is a signed note
 * (services/ledger/signed-note.ts).
 */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  /** Standard base64 of the 32-byte root hash. */
  rootHash: string;
}

const BASE64_HASH = /^[A-Za-z0-9+/]{43}=$/;

/** An origin is a key name too: non-empty, with no spaces and no plus (C2SP signed-note). */
export function isValidOrigin(origin: string): boolean {
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- by code point on purpose: no code point may be a control character
  return origin.length > 0 && !/[\s+]/u.test(origin) && [...origin].every((char) => char.charCodeAt(0) >= 0x20);
}

export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.treeSize}\n${checkpoint.rootHash}\n`;
}

/** Reads a checkpoint's text; undefined when it is not one (extension lines are refused: we never write them). */
export function parseCheckpointText(text: string): Checkpoint | undefined {
  if (!text.endsWith('\n')) return undefined;
  const lines = text.slice(0, -1).split('\n');
  if (lines.length !== 3) return undefined;
  const [origin, size, rootHash] = lines as [string, string, string];
  if (!isValidOrigin(origin) || !/^(0|[1-9][0-9]*)$/.test(size) || !BASE64_HASH.test(rootHash)) return undefined;
  const treeSize = Number(size);
  if (!Number.isSafeInteger(treeSize)) return undefined;
  return { origin, treeSize, rootHash };
}
