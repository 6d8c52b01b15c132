import {
  ActivityFailure,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createLedgerActivities } from '../activities/ledger';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';
import {
  sealerSettingsSignal,
  sealerStatusQuery,
  type LedgerSealerInput,
  type LedgerSealerSettings,
  type LedgerSealerStatus,
} from '../contracts/seal-ledger';

type LedgerActivities = ReturnType<typeof createLedgerActivities>;

/** Every activity heartbeats, so a dead worker's work is retried elsewhere within the heartbeat timeout. */
function activitiesFor(settings: LedgerSealerSettings) {
  const heartbeatTimeout = Math.max(10_000, settings.poll_interval_ms * 20);
  const retry = DATABASE_ACTIVITY_RETRY;
  const { awaitDueBlock } = proxyActivities<LedgerActivities>({
    startToCloseTimeout: settings.idle_return_ms + 60_000,
    heartbeatTimeout,
    retry,
  });
  const { closeLedgerBlock, sealLedgerBlocks } = proxyActivities<LedgerActivities>({
    startToCloseTimeout: settings.seal_timeout_ms,
    heartbeatTimeout,
    retry,
  });
  return { awaitDueBlock, closeLedgerBlock, sealLedgerBlocks };
}

/** Waits until a block is due, closes it when it is open, and seals every closed block up to it. */
async function cycle(settings: LedgerSealerSettings, status: LedgerSealerStatus): Promise<void> {
  const { awaitDueBlock, closeLedgerBlock, sealLedgerBlocks } = activitiesFor(settings);
  const due = await awaitDueBlock(settings);
  if (due.kind === 'idle') return;
  let through = due.kind === 'seal' ? due.through_block : due.block_number;
  if (due.kind === 'close') {
    const closed = await closeLedgerBlock({
      block_number: due.block_number,
      lock_timeout_ms: settings.close_lock_timeout_ms,
    });
    // Another sealer closed blocks meanwhile (two deployments on one database): seal what is closed.
    if (!closed.ok) through = closed.last_closed_block;
  }
  const sealed = await sealLedgerBlocks(through);
  if (sealed.last) {
    status.blocks_sealed += sealed.count;
    status.tree_size = sealed.last.tree_size;
    status.last_sealed_block = sealed.last.block_number;
    status.last_sealed_at = sealed.last.sealed_at;
  }
}

/**
 * The one sealer of the ledger (workflow id per task queue, started idempotently with signal-with-start
 * by every worker entry): waits until the open block is due by size or age, closes it, and seals every
 * closed block into a signed checkpoint. Closing and sealing are idempotent per block, so a worker that
 * dies at any point leaves nothing half done: the next attempt finds a closed block and seals it. A
 * cycle whose activity gives up after its retries is logged, and the next cycle starts over.
 */
export async function sealLedgerWorkflow(input: LedgerSealerInput): Promise<void> {
  let settings = input.settings;
  const status: LedgerSealerStatus = {
    settings,
    cycles: 0,
    blocks_sealed: 0,
    tree_size: null,
    last_sealed_block: null,
    last_sealed_at: null,
  };
  setHandler(sealerSettingsSignal, (next) => {
    settings = next;
  });
  setHandler(sealerStatusQuery, () => ({ ...status, settings }));

  while (status.cycles < settings.cycles_before_continue_as_new && !workflowInfo().continueAsNewSuggested) {
    status.cycles += 1;
    try {
      await cycle(settings, status);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('a ledger sealing cycle gave up; the next cycle starts over', {
        error: error.cause?.message ?? error.message,
      });
      await sleep(settings.poll_interval_ms);
    }
  }
  await continueAsNew<typeof sealLedgerWorkflow>({ settings });
}
