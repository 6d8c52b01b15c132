/**
 * Records the asset review workflow's histories the replay test replays: run with
 * `npx tsx scripts/histories/record-asset-histories.ts` after a deliberate, versioned change to
 * reviewAssetWorkflow, and commit the JSON files.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createAssetActivities } from '../../activities/assets';
import { provisionTemporal } from '../provision-temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { reviewAssetWorkflow } from '../../workflows/review-asset';

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  let failures = 0;
  const activities: ReturnType<typeof createAssetActivities> = {
    // The database is away once during the provenance step; the retry is taken.
    runReviewStep: async (assetId, step) => {
      if (step === 'provenance' && failures++ === 0) throw new Error('connection terminated');
      if (assetId === 'ast_rejected' && step === 'manifest')
        return { check: { check: step, passed: false, reasons: ['manifest.version one is not a semantic version'] } };
      return {
        check: { check: step, passed: true, reasons: [] },
        ...(step === 'provenance'
          ? {
              publisher: {
                did: 'did:web:recorded',
                type: 'individual' as const,
                identity_tier: 1,
                same_organization: true,
              },
            }
          : {}),
      };
    },
    recordReviewConclusion: async (_assetId, conclusion) => conclusion.review_status,
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record',
    workflowBundle: await bundleWorkflows(),
    activities,
  });
  const write = async (name: string, history: Parameters<typeof historyToJSON>[0]) => {
    const file = path.join(__dirname, '../../test/workflows/histories', `${name}.json`);
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  };
  await worker.runUntil(async () => {
    for (const [assetId, name] of [
      ['ast_approved', 'review-asset-approved-after-a-retry'],
      ['ast_rejected', 'review-asset-rejected'],
    ] as const) {
      const handle = await env.client.workflow.start(reviewAssetWorkflow, {
        taskQueue: 'record',
        workflowId: `asset-review:${assetId}`,
        args: [{ asset_id: assetId, step_timeout_ms: 30_000 }],
      });
      await handle.result();
      await write(name, await handle.fetchHistory());
    }
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
