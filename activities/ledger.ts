import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import * as ledger from '../db/ledger';
import {
  closeBlock,
  ledgerState,
  unsealedClosedBlocks,
  type CloseOutcome,
  type LedgerState,
} from '../db/ledger-blocks';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { WorkerSettings } from './settings';
import type { Logger } from '../lib/logger';
import { ensureLedgerKey, type LedgerKey } from '../services/ledger/keys';
import { sealBlock, type SealedBlock } from '../services/ledger/seal';
import type { LedgerSealerSettings } from '../contracts/seal-ledger';
import { withInvalidDataFailures } from './failures';
import { whileHeartbeating } from './heartbeats';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

export type DueBlock =
  { kind: 'idle' } | { kind: 'close'; block_number: number } | { kind: 'seal'; through_block: number };

/** At most this many blocks per sealing activity, so one activity never runs for long (a migrated log has many one-record blocks). */
const BLOCKS_PER_SEAL = 200;
const HEARTBEAT_EVERY_MS = 2000;

/** The sealing due now, by the ledger's state and the sealer's settings; undefined when none is yet. */
function dueBlock(state: LedgerState, settings: LedgerSealerSettings): DueBlock | undefined {
  if (state.last_closed_block > state.last_sealed_block)
    return { kind: 'seal', through_block: state.last_closed_block };
  if (state.open_block_leaves >= settings.max_block_leaves) return { kind: 'close', block_number: state.open_block };
  const age = state.open_block_age_ms;
  if (age !== null && age >= settings.max_block_age_ms) return { kind: 'close', block_number: state.open_block };
  return undefined;
}

/**
 * How long to wait before looking at the ledger again. An empty open block cannot fall due by age sooner than the
 * age limit after its first record, so a look every quarter of that finds the record in time to close the block
 * exactly when due; a block with records is looked at every poll interval (for its size) and when it falls due.
 */
function untilNextLook(state: LedgerState, settings: LedgerSealerSettings): number {
  if (state.open_block_age_ms === null)
    return Math.max(settings.poll_interval_ms, Math.floor(settings.max_block_age_ms / 4));
  return Math.min(settings.poll_interval_ms, settings.max_block_age_ms - state.open_block_age_ms);
}

/** The ledger's signing key, loaded (or made) once per worker; a failed load is tried again next time. */
function cachedLedgerKey(deps: { db: Knex; settings: WorkerSettings; logger: Logger }): () => Promise<LedgerKey> {
  let key: Promise<LedgerKey> | undefined;
  return () => {
    key ??= ensureLedgerKey(
      deps.db,
      deps.settings.ledger.origin,
      (message) => deps.logger.warn(message),
      deps.settings.ledger.secretKeys,
    ).catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    return key;
  };
}

export function createLedgerActivities(deps: { db: Knex; settings: WorkerSettings; logger: Logger }) {
  const ledgerKey = cachedLedgerKey(deps);

  return withInvalidDataFailures({
    /** Provenance for workflows with no read model of their own to write in the same step; idempotent per (subject, step). */
    async appendProvenance(
      input: AppendProvenanceInput & { organization_id?: string | undefined },
    ): Promise<LedgerAnchor> {
      return ledger.appendProvenance(deps.db, {
        ...input,
        organization_id: input.organization_id ?? DEFAULT_ORGANIZATION_ID,
      });
    },

    /**
     * Long-polls until there is sealing to do: closed blocks not yet sealed (a sealer died mid-way), or
     * an open block due by size or age. Returns idle after a while so the workflow can pick up settings.
     */
    async awaitDueBlock(settings: LedgerSealerSettings): Promise<DueBlock> {
      const context = Context.current();
      const started = Date.now();
      let heartbeatAt = 0;
      for (;;) {
        const state = await ledgerState(deps.db);
        const due = dueBlock(state, settings);
        if (due) return due;
        const left = settings.idle_return_ms - (Date.now() - started);
        if (left <= 0) return { kind: 'idle' };
        // The SDK sends one heartbeat per throttle interval (most of the 10 s timeout) however often it is called.
        if (Date.now() - heartbeatAt >= HEARTBEAT_EVERY_MS) {
          context.heartbeat();
          heartbeatAt = Date.now();
        }
        await context.sleep(Math.max(1, Math.min(untilNextLook(state, settings), left)));
      }
    },

    /** Fails (and is retried) when appends in flight hold the block longer than the lock timeout. */
    async closeLedgerBlock(input: { block_number: number; lock_timeout_ms: number }): Promise<CloseOutcome> {
      return closeBlock(deps.db, input.block_number, { lockTimeoutMs: input.lock_timeout_ms });
    },

    /** Seals the closed blocks up to `throughBlock`, oldest first, a bounded number per call. */
    async sealLedgerBlocks(throughBlock: number): Promise<{ count: number; last: SealedBlock | null }> {
      const context = Context.current();
      const signingKey = await ledgerKey();
      const blocks = (await unsealedClosedBlocks(deps.db, throughBlock)).slice(0, BLOCKS_PER_SEAL);
      // A large block takes a while to seal in its one transaction: keep telling Temporal this worker lives.
      const last = await whileHeartbeating(context, HEARTBEAT_EVERY_MS, async () => {
        let sealed: SealedBlock | null = null;
        for (const blockNumber of blocks) sealed = await sealBlock(deps.db, blockNumber, signingKey);
        return sealed;
      });
      if (last)
        deps.logger.debug('ledger blocks sealed', {
          blocks: blocks.length,
          block_number: last.block_number,
          tree_size: last.tree_size,
        });
      return { count: blocks.length, last };
    },
  });
}
