/**
 * Records the histories of the ledger's workflows for the replay test: run with
 * `npx tsx scripts/histories/record-ledger-histories.ts` after a deliberate, versioned change to
 * workflows/seal-ledger.ts or workflows/generate-compliance-report.ts, and commit the JSON files.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { DueBlock } from '../../activities/ledger';
import { tallyRecords } from '../../domain/provenance/compliance';
import { provisionTemporal } from '../provision-temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { generateComplianceReportWorkflow } from '../../workflows/generate-compliance-report';
import { sealLedgerWorkflow } from '../../workflows/seal-ledger';

// The sealer: an idle poll, a block due by size, then closed blocks a sealer that died left behind.
const DUE: DueBlock[] = [{ kind: 'idle' }, { kind: 'close', block_number: 1 }, { kind: 'seal', through_block: 2 }];

function write(name: string, history: unknown): void {
  const file = path.join(__dirname, '../../test/workflows/histories', name);
  writeFileSync(
    file,
    `${JSON.stringify(JSON.parse(historyToJSON(history as Parameters<typeof historyToJSON>[0])), null, 2)}\n`,
  );
  process.stdout.write(`wrote ${file}\n`);
}

async function firstRunHistory(env: TestWorkflowEnvironment, handle: WorkflowHandleWithFirstExecutionRunId) {
  const firstRun = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
  while ((await firstRun.describe()).status.name === 'RUNNING')
    await new Promise((resolve) => setTimeout(resolve, 100));
  return firstRun.fetchHistory();
}

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  let cycle = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record-ledger',
    workflowBundle: await bundleWorkflows(),
    activities: {
      awaitDueBlock: async () => DUE[cycle++ % DUE.length],
      closeLedgerBlock: async ({ block_number }: { block_number: number }) => ({ ok: true, block_number }),
      sealLedgerBlocks: async (through: number) => ({
        count: 1,
        last: {
          block_number: through,
          tree_size: through * 5,
          root_hash: '',
          checkpoint: '',
          sealed_at: '2026-11-23T00:00:00.000Z',
        },
      }),
      // The report: two pages of an empty period, so the first run continues as new.
      scanCompliancePage: async ({ after }: { after: { seq: number } | null }) => ({
        tally: tallyRecords([], 10),
        next: after === null ? { recorded_at: '2026-08-01 00:00:00+00', seq: 1 } : null,
      }),
      latestLedgerSnapshot: async () => null,
      projectComplianceReport: async () => undefined,
    },
  });
  await worker.runUntil(async () => {
    const sealer = await env.client.workflow.start(sealLedgerWorkflow, {
      taskQueue: 'record-ledger',
      workflowId: `ledger-sealer-${randomUUID()}`,
      args: [
        {
          settings: {
            max_block_leaves: 5,
            max_block_age_ms: 1000,
            poll_interval_ms: 50,
            idle_return_ms: 60_000,
            close_lock_timeout_ms: 500,
            seal_timeout_ms: 60_000,
            cycles_before_continue_as_new: 3,
          },
        },
      ],
    });
    write('seal-ledger-three-cycles-then-continue-as-new.json', await firstRunHistory(env, sealer));
    await sealer.terminate('recorded');

    const reportId = `rpt_${randomUUID()}`;
    const report = await env.client.workflow.start(generateComplianceReportWorkflow, {
      taskQueue: 'record-ledger',
      workflowId: reportId,
      args: [
        {
          report_id: reportId,
          request: { report_type: 'recorded', period: '2026-Q3', domains: [], include_violations: true },
          requested_by: 'recorder',
          report_url: `https://handoff.example/v1/orch/compliance/reports/${reportId}`,
          created_at: '2026-10-01T00:00:00.000Z',
          page_size: 1,
          max_violations: 10,
          pages_before_continue_as_new: 1,
          activity_timeout_ms: 10_000,
        },
      ],
    });
    write('generate-compliance-report-continued-as-new.json', await firstRunHistory(env, report));
    await report.result();
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
