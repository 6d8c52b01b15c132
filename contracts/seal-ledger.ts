import { defineQuery, defineSignal } from '@temporalio/workflow';

export interface LedgerSealerSettings {
  /** A block is due once it holds this many records… */
  max_block_leaves: number;
  /** …or once its oldest record has waited this long. */
  max_block_age_ms: number;
  /** How often the waiting activity looks at the open block. */
  poll_interval_ms: number;
  /** The waiting activity returns after this long with nothing due, so new settings take effect. */
  idle_return_ms: number;
  /** How long closing a block waits for appends still in flight before it is retried. */
  close_lock_timeout_ms: number;
  /** The longest one sealing activity may take (a block that grew while no sealer ran can be large). */
  seal_timeout_ms: number;
  /** The run continues as new after this many cycles (or when Temporal suggests it) to bound its history. */
  cycles_before_continue_as_new: number;
}

export interface LedgerSealerInput {
  settings: LedgerSealerSettings;
}

export interface LedgerSealerStatus {
  settings: LedgerSealerSettings;
  cycles: number;
  blocks_sealed: number;
  tree_size: number | null;
  last_sealed_block: number | null;
  last_sealed_at: string | null;
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const SEAL_LEDGER_WORKFLOW = 'sealLedgerWorkflow';
export type SealLedgerWorkflow = (input: LedgerSealerInput) => Promise<void>;

/** New limits from a restarted worker's configuration; they apply from the next cycle. */
export const sealerSettingsSignal = defineSignal<[LedgerSealerSettings]>('settings');
export const sealerStatusQuery = defineQuery<LedgerSealerStatus>('status');
