import type { Knex } from 'knex';
import { checkpointWithTreeSize, latestCheckpoint, type CheckpointRow } from '../db/ledger-blocks';
import { exportLedger } from '../services/ledger/export';
import { loadLedgerIdentity, type LedgerIdentity } from '../services/ledger/keys';
import { consistencyBundle, recordBundle, type BundleOutcome } from '../services/ledger/proofs';
import { Problem } from './problem';
import type { ApiBuilder, Reply } from './route';
import {
  CheckpointSchema,
  ConsistencyBundleSchema,
  ConsistencyQuerySchema,
  InclusionBundleSchema,
  LedgerExportSchema,
  LedgerKeySchema,
  ProofPendingSchema,
  TransactionIdParamsSchema,
  TreeSizeQuerySchema,
} from './schemas/ledger';

export interface LedgerRouteDeps {
  db: Knex;
  /** How long a record may wait for its block to be sealed: what a client told "pending" should wait. */
  blockMaxAgeMs: number;
}

function toCheckpoint(row: CheckpointRow) {
  return {
    block_number: row.block_number,
    tree_size: row.tree_size,
    root_hash: row.root_hash.toString('base64'),
    sealed_at: new Date(row.sealed_at).toISOString(),
    checkpoint: row.checkpoint,
  };
}

function toLedgerKey(key: LedgerIdentity) {
  return {
    origin: key.origin,
    key_id: key.keyId,
    algorithm: 'Ed25519',
    public_key: key.publicKey.toString('base64'),
    verifier_key: key.verifierKey,
    checkpoint_format: 'https://c2sp.org/tlog-checkpoint',
    hashing: 'RFC 6962 / RFC 9162: SHA-256, leaf 0x00 || canonical JSON (RFC 8785), node 0x01 || left || right',
  };
}

/** A proof bundle's outcome as the API answers it: the bundle, 202 while the block is unsealed, or a problem. */
export function bundleReply<T>(outcome: BundleOutcome<T>, blockMaxAgeMs: number): Reply {
  if (outcome.ok) return { status: 200, body: outcome.bundle };
  switch (outcome.code) {
    case 'not_sealed': {
      const retry_after_seconds = Math.max(1, Math.ceil(blockMaxAgeMs / 1000));
      return {
        status: 202,
        headers: { 'Retry-After': String(retry_after_seconds) },
        body: {
          status: 'pending',
          transaction_id: outcome.transaction_id,
          block_number: outcome.block_number,
          retry_after_seconds,
        },
      };
    }
    case 'not_found':
      throw new Problem('ledger_record_not_found', outcome.detail);
    case 'no_checkpoint':
    case 'tree_size_unknown':
      throw new Problem('ledger_checkpoint_not_found', outcome.detail);
    case 'tree_size_too_small':
      throw new Problem('ledger_proof_unavailable', outcome.detail);
  }
}

/** The proof options of a `tree_size` query parameter. */
export function atTreeSize(treeSize: number | undefined): { treeSize?: number } {
  return treeSize === undefined ? {} : { treeSize };
}

const PENDING = {
  description: 'The record’s block is not sealed yet; retry after Retry-After seconds',
  schema: ProofPendingSchema,
};

/**
 * The transparency log itself: its key and checkpoints are public (like any transparency log's, so
 * monitors can watch it without credentials; they reveal only sizes and hashes); proofs of records and
 * the export, which carry record bodies, need a token, and give the bodies of the caller's organization only.
 */
export function registerLedgerRoutes(api: ApiBuilder, deps: LedgerRouteDeps): void {
  registerPublicLog(api, deps);
  registerRecordProofs(api, deps);
}

const PUBLIC_LOG = { tags: ['Ledger'], auth: 'public' as const, rateLimit: 'default' as const };

/** The key, the checkpoints and the proofs between them: public, and nothing of any record. */
function registerPublicLog(api: ApiBuilder, deps: LedgerRouteDeps): void {
  api.route({
    ...PUBLIC_LOG,
    method: 'get',
    path: '/v1/ledger/key',
    operationId: 'getLedgerKey',
    summary: 'The log’s origin and Ed25519 public key: all a verifier needs',
    responses: {
      200: { description: 'The key', schema: LedgerKeySchema },
      503: { description: 'The log has no key yet (no service has started against this database)' },
    },
    handler: async () => {
      const key = await loadLedgerIdentity(deps.db);
      if (!key) throw new Problem('service_unavailable', 'The ledger has no key yet: start the service once');
      return { status: 200, headers: { 'Cache-Control': 'public, max-age=3600' }, body: toLedgerKey(key) };
    },
  });

  api.route({
    ...PUBLIC_LOG,
    method: 'get',
    path: '/v1/ledger/checkpoint',
    operationId: 'getLedgerCheckpoint',
    summary: 'The latest signed checkpoint, or the one of a given tree size',
    request: { query: TreeSizeQuerySchema },
    responses: {
      200: { description: 'The checkpoint', schema: CheckpointSchema },
      404: { description: 'No checkpoint (yet, or of that size)' },
    },
    handler: async ({ query }) => {
      const row =
        query.tree_size === undefined
          ? await latestCheckpoint(deps.db)
          : await checkpointWithTreeSize(deps.db, query.tree_size);
      if (!row)
        throw new Problem(
          'ledger_checkpoint_not_found',
          query.tree_size === undefined
            ? 'The log has no checkpoint yet'
            : `No checkpoint has a tree of ${query.tree_size} leaves`,
        );
      return { status: 200, body: toCheckpoint(row) };
    },
  });

  api.route({
    ...PUBLIC_LOG,
    method: 'get',
    path: '/v1/ledger/consistency',
    operationId: 'getLedgerConsistencyProof',
    summary: 'Proof that the log at one checkpoint extends the log at an earlier one',
    description:
      'Both sizes must be checkpointed tree sizes, so both roots are signed. Verify offline with `npm run verify`.',
    request: { query: ConsistencyQuerySchema },
    responses: {
      200: { description: 'The consistency bundle', schema: ConsistencyBundleSchema },
      404: { description: 'No checkpoint of that tree size' },
      422: { description: 'The first tree is larger than the second' },
    },
    handler: async ({ query }) =>
      bundleReply(await consistencyBundle(deps.db, query.first, query.second), deps.blockMaxAgeMs),
  });
}

/** What carries record bodies: a record's proof and the export, of the caller's organization only. */
function registerRecordProofs(api: ApiBuilder, deps: LedgerRouteDeps): void {
  api.route({
    method: 'get',
    path: '/v1/ledger/records/{transaction_id}/proof',
    operationId: 'getLedgerRecordProof',
    summary: 'An inclusion bundle for any record: its canonical body, leaf index, proof and signed checkpoint',
    tags: ['Ledger'],
    auth: 'orch:read',
    rateLimit: 'provenance-queries',
    request: { params: TransactionIdParamsSchema, query: TreeSizeQuerySchema },
    responses: {
      200: { description: 'The bundle', schema: InclusionBundleSchema },
      202: PENDING,
      404: { description: 'No such record, or no checkpoint of that tree size' },
      422: { description: 'The record is not in the tree of that size' },
    },
    handler: async ({ params, query, principal }) =>
      bundleReply(
        await recordBundle(deps.db, params.transaction_id, {
          ...atTreeSize(query.tree_size),
          organizationId: principal.organization_id,
        }),
        deps.blockMaxAgeMs,
      ),
  });

  api.route({
    method: 'get',
    path: '/v1/ledger/export',
    operationId: 'exportLedger',
    summary: 'The whole sealed log as JSON lines, for `npm run verify` to check offline against its checkpoints',
    description:
      'Lines: a header {format, origin, verifier_key, organization_id}; each block’s leaves followed by its {checkpoint: {block_number, tree_size, note}}; ' +
      'and a last {end: {tree_size, checkpoints}} so a cut-off download is detected. Streamed. A leaf of the caller’s organization is ' +
      '{leaf: {index, transaction_id, block_number, body}}; one of another organization is {withheld_leaf: {index, block_number, leaf_hash}}: ' +
      'its base64 SHA-256 leaf hash (of the record as stored now), enough to recompute every checkpoint’s tree and nothing of the record.',
    tags: ['Ledger'],
    auth: 'audit:read',
    rateLimit: 'audit-logs',
    responses: {
      200: {
        description: 'The sealed log as JSON lines',
        contentType: 'application/x-ndjson',
        schema: LedgerExportSchema,
      },
    },
    handler: async ({ principal }) => {
      if (!(await loadLedgerIdentity(deps.db)))
        throw new Problem('service_unavailable', 'The ledger has no key yet: start the service once');
      return {
        status: 200,
        stream: {
          contentType: 'application/x-ndjson',
          chunks: ndjson(exportLedger(deps.db, { organizationId: principal.organization_id })),
        },
      };
    },
  });
}

async function* ndjson(lines: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const line of lines) yield `${JSON.stringify(line)}\n`;
}
