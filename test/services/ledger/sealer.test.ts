import { sealerStatusQuery } from '../../../contracts/seal-ledger';
import { appendProvenanceBatch } from '../../../db/ledger';
import { closeBlock, ledgerSealingLag, ledgerState } from '../../../db/ledger-blocks';
import type { ProvenanceEntry } from '../../../domain/provenance/records';
import { ledgerSealerSettings } from '../../../app/deps';
import { verifyStoredLedger } from '../../../services/ledger/export';
import { ledgerSealerWorkflowId, startLedgerSealer } from '../../../services/ledger/sealer';
import { useStack } from '../../support/stack';

// Blocks fall due by size (5 records) long before their age (a minute) could seal them.
const stack = useStack({ LEDGER_BLOCK_MAX_LEAVES: '5', LEDGER_BLOCK_MAX_AGE_MS: '60000' });

const entries = (subject: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    entry: {
      subject_id: subject,
      step_id: `step-${i}`,
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core' },
      action: 'test',
      input_data: {},
      output_data: {},
      reasoning: 'sealer test',
    } satisfies ProvenanceEntry,
  }));

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the ledger sealer on the Temporal dev server', () => {
  it('seals a block as soon as it holds enough records, and leaves a smaller one to its age limit', async () => {
    await appendProvenanceBatch(stack.database.db, entries('by-size', 5));
    const sealed = await eventually(
      () => ledgerSealingLag(stack.database.db),
      (lag) => lag.unsealed_leaves === 0,
    );
    expect(sealed).toMatchObject({ unsealed_leaves: 0, tree_size: 5 });

    await appendProvenanceBatch(stack.database.db, entries('too-few', 2));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await ledgerSealingLag(stack.database.db)).toMatchObject({ unsealed_leaves: 2, tree_size: 5 });
  });

  it('finishes the work of a sealer that died after closing a block', async () => {
    await stack.stopWorker();
    const { open_block } = await ledgerState(stack.database.db);
    await appendProvenanceBatch(stack.database.db, entries('crash', 3));
    // As if the worker had closed the block and died before sealing it.
    await closeBlock(stack.database.db, open_block, { lockTimeoutMs: 2000 });
    expect((await ledgerSealingLag(stack.database.db)).last_sealed_block).toBeLessThan(open_block);

    await stack.startWorker();
    const lag = await eventually(
      () => ledgerSealingLag(stack.database.db),
      (value) => value.last_sealed_block === open_block,
    );
    expect(lag).toMatchObject({ last_sealed_block: open_block, unsealed_leaves: 0, tree_size: 10 });
    expect(await verifyStoredLedger(stack.database.db)).toMatchObject({ ok: true, problems: [] });
  });

  it('is started once per deployment and takes new limits from the next start', async () => {
    const settings = { ...ledgerSealerSettings(stack.config), max_block_leaves: 3 };
    const workflowId = await startLedgerSealer(stack.temporal, { taskQueue: stack.taskQueue, settings });
    expect(workflowId).toBe(ledgerSealerWorkflowId(stack.taskQueue));
    const status = await stack.temporal.workflow.getHandle(workflowId).query(sealerStatusQuery);
    expect(status.settings.max_block_leaves).toBe(3);
    const runs: string[] = [];
    for await (const execution of stack.temporal.workflow.list({
      query: `WorkflowId = "${workflowId}" AND ExecutionStatus = "Running"`,
    }))
      runs.push(execution.runId);
    expect(runs).toHaveLength(1);
  });
});
