import { CONSISTENCY_BUNDLE_FORMAT, INCLUSION_BUNDLE_FORMAT } from '../../services/ledger/formats';
import { z } from './zod';

const base64Hash = z.string().openapi({
  description: 'Base64 of a 32-byte SHA-256 hash',
  example: 'XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=',
});
const signedCheckpoint = z.string().openapi({
  description:
    'A C2SP tlog-checkpoint (origin, tree size, base64 root, one per line) in a C2SP signed note by the log key',
  example:
    'handoff.example/ledger\n42\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n\n— handoff.example/ledger AAAAAF9…\n',
});

export const LedgerKeySchema = z
  .object({
    origin: z.string().openapi({ description: 'The first line of every checkpoint, and the name of the key' }),
    key_id: z.string().openapi({
      description: 'C2SP signed-note key ID: SHA-256(origin || 0x0A || 0x01 || public key)[:4], as 8 hex digits',
    }),
    algorithm: z.literal('Ed25519'),
    public_key: z.string().openapi({ description: 'Base64 of the 32-byte Ed25519 public key' }),
    verifier_key: z.string().openapi({
      description:
        'The note verifier key `<origin>+<key id>+<base64(0x01 || public key)>`; give it to `npm run verify --key`',
    }),
    checkpoint_format: z.literal('https://c2sp.org/tlog-checkpoint'),
    hashing: z.literal(
      'RFC 6962 / RFC 9162: SHA-256, leaf 0x00 || canonical JSON (RFC 8785), node 0x01 || left || right',
    ),
  })
  .openapi('LedgerKey');

export const CheckpointSchema = z
  .object({
    block_number: z.number().int(),
    tree_size: z.number().int(),
    root_hash: base64Hash,
    sealed_at: z.string(),
    checkpoint: signedCheckpoint,
  })
  .openapi('LedgerCheckpoint');

export const TreeSizeQuerySchema = z.object({
  tree_size: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'The checkpoint of this tree size instead of the latest' }),
});

export const ConsistencyQuerySchema = z.object({
  // A coerced number reads as optional to the document generator; the parameter is required.
  first: z.coerce
    .number()
    .int()
    .min(0)
    .openapi({ description: 'Tree size of the checkpoint you hold', param: { required: true } }),
  second: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'Tree size to prove it extends into; default the latest checkpoint' }),
});

export const InclusionBundleSchema = z
  .object({
    format: z.literal(INCLUSION_BUNDLE_FORMAT),
    origin: z.string(),
    verifier_key: z.string().openapi({ description: 'For reading only: verify against a copy of the key you trust' }),
    checkpoint: signedCheckpoint,
    block_number: z.number().int(),
    tree_size: z.number().int(),
    root_hash: base64Hash,
    records: z.array(
      z.object({
        transaction_id: z.string(),
        subject_id: z.string(),
        step_id: z.string(),
        block_number: z.number().int(),
        leaf_index: z.number().int(),
        body: z
          .string()
          .openapi({ description: 'The record as RFC 8785 canonical JSON: exactly the bytes the leaf hash covers' }),
        leaf_hash: base64Hash,
        inclusion_proof: z
          .array(base64Hash)
          .openapi({ description: 'RFC 9162 §2.1.3 audit path, from the leaf’s sibling up' }),
      }),
    ),
  })
  .openapi('InclusionBundle', {
    description: 'Proves records are in the log, offline, with `npm run verify -- --key <verifier key> bundle.json`',
  });

export const ConsistencyBundleSchema = z
  .object({
    format: z.literal(CONSISTENCY_BUNDLE_FORMAT),
    origin: z.string(),
    verifier_key: z.string(),
    first: z.object({
      tree_size: z.number().int(),
      block_number: z.number().int().nullable(),
      checkpoint: signedCheckpoint.nullable(),
    }),
    second: z.object({ tree_size: z.number().int(), block_number: z.number().int(), checkpoint: signedCheckpoint }),
    proof: z.array(base64Hash).openapi({ description: 'RFC 9162 §2.1.4 consistency proof' }),
  })
  .openapi('ConsistencyBundle', {
    description: 'Proves the later tree extends the earlier one: the log was not rewritten in between',
  });

export const ProofPendingSchema = z
  .object({
    status: z.literal('pending'),
    transaction_id: z.string(),
    block_number: z.number().int().openapi({ description: 'The block the record will be sealed into' }),
    retry_after_seconds: z.number().int(),
  })
  .openapi('ProofPending', {
    description: 'The record is in the log but its block is not sealed yet; ask again after Retry-After',
  });

export const TransactionIdParamsSchema = z.object({
  transaction_id: z.string().regex(/^[0-9a-f]{64}$/, 'must be a ledger transaction id (64 hex digits)'),
});

/** A provenance record's step as callers recorded it: the spec's decision_chain item. */
export const ProvenanceStepSchema = z.object({
  step_id: z.string(),
  timestamp: z.string(),
  actor: z.object({
    type: z.enum(['ai_agent', 'orch_core', 'human']),
    agent_id: z.string().optional(),
    did: z.string().optional(),
    instance_id: z.string().optional(),
  }),
  action: z.string(),
  input_data: z.record(z.string(), z.unknown()),
  output_data: z.record(z.string(), z.unknown()),
  reasoning: z.string(),
  rules_evaluated: z
    .array(z.object({ rule_id: z.string(), triggered: z.boolean(), reason: z.string() }))
    .optional()
    .openapi({ description: 'Present on routing steps' }),
});

export const LedgerExportSchema = z
  .string()
  .openapi({ description: 'JSON lines (application/x-ndjson), one JSON object per line, as the operation describes' });
