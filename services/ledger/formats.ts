/** The files `npm run verify` reads: what the API and `npm run ledger:export` hand out. */

export const INCLUSION_BUNDLE_FORMAT = 'handoff-ledger-inclusion/v1';
export const CONSISTENCY_BUNDLE_FORMAT = 'handoff-ledger-consistency/v1';
export const EXPORT_FORMAT = 'handoff-ledger-export/v1';

export interface BundledRecord {
  transaction_id: string;
  subject_id: string;
  step_id: string;
  block_number: number;
  leaf_index: number;
  /** The record's RFC 8785 canonical JSON: the leaf data. */
  body: string;
  /** Base64 SHA-256(0x00 || body). */
  leaf_hash: string;
  /** Base64 hashes, from the leaf's sibling up. */
  inclusion_proof: string[];
}

/** Everything needed to verify records offline with the log's public key: see `npm run verify`. */
export interface InclusionBundle {
  format: typeof INCLUSION_BUNDLE_FORMAT;
  origin: string;
  /** For convenience only: verify against a copy of the key you trust, not this one. */
  verifier_key: string;
  /** The C2SP signed checkpoint the proofs lead to. */
  checkpoint: string;
  block_number: number;
  tree_size: number;
  root_hash: string;
  records: BundledRecord[];
}

export interface ConsistencyBundle {
  format: typeof CONSISTENCY_BUNDLE_FORMAT;
  origin: string;
  verifier_key: string;
  first: { tree_size: number; block_number: number | null; checkpoint: string | null };
  second: { tree_size: number; block_number: number; checkpoint: string };
  /** Base64 hashes (RFC 9162 §2.1.4); empty when the sizes are equal or the first is 0. */
  proof: string[];
}

export type ExportLine =
  /** organization_id: whose export this is; absent from an operator's export of every organization's records. */
  | { format: typeof EXPORT_FORMAT; origin: string; verifier_key: string; organization_id?: string }
  | { leaf: { index: number; transaction_id: string; block_number: number; body: string } }
  /** Another organization's record in an organization's export: its base64 leaf hash stands in for it in the tree. */
  | { withheld_leaf: { index: number; block_number: number; leaf_hash: string } }
  | { checkpoint: { block_number: number; tree_size: number; note: string } }
  /** The last line, so a verifier can tell a complete export from one cut short. */
  | { end: { tree_size: number; checkpoints: number } };
