/**
 * Records the ledger sealer's history for the replay test: run with
 * `npx tsx test/workflows/record-sealer-history.ts` after a deliberate, versioned change to
 * workflows/seal-ledger.ts, and commit the JSON file.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { DueBlock } from '../../activities/ledger';
import { provisionTemporal } from '../../scripts/provision-temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { sealLedgerWorkflow } from '../../workflows/seal-ledger';

// An idle poll, a block due by size, then closed blocks a sealer that died left behind; three cycles make a run.
const DUE: DueBlock[] = [{ kind: 'idle' }, { kind: 'close', block_number: 1 }, { kind: 'seal', through_block: 2 }];

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServer } } });
  let cycle = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record-sealer',
    workflowBundle: await bundleWorkflows(),
    activities: {
      awaitDueBlock: async () => DUE[cycle++ % DUE.length],
      closeLedgerBlock: async ({ block_number }: { block_number: number }) => ({ ok: true, block_number }),
      sealLedgerBlocks: async (through: number) => ({
        count: 1,
        last: { block_number: through, tree_size: through * 5, root_hash: '', checkpoint: '', sealed_at: '2026-11-23T00:00:00.000Z' },
      }),
    },
  });
  await worker.runUntil(async () => {
    const sealer = await env.client.workflow.start(sealLedgerWorkflow, {
      taskQueue: 'record-sealer',
      workflowId: `ledger-sealer-${randomUUID()}`,
      args: [{ settings: { max_block_leaves: 5, max_block_age_ms: 1000, poll_interval_ms: 50, idle_return_ms: 60_000, close_lock_timeout_ms: 500, cycles_before_continue_as_new: 3 } }],
    });
    const firstRun = env.client.workflow.getHandle(sealer.workflowId, sealer.firstExecutionRunId);
    while ((await firstRun.describe()).status.name === 'RUNNING') await new Promise((resolve) => setTimeout(resolve, 100));
    const file = path.join(__dirname, 'histories', 'seal-ledger-three-cycles-then-continue-as-new.json');
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(await firstRun.fetchHistory())), null, 2)}\n`);
    await sealer.terminate('recorded');
    process.stdout.write(`wrote ${file}\n`);
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
