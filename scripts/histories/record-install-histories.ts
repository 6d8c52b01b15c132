/**
 * Records the install workflow's histories the replay test replays: run with
 * `npx tsx scripts/histories/record-install-histories.ts` after a deliberate, versioned change to
 * installConnectorWorkflow, and commit the JSON files.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createConnectorActivities } from '../../activities/connectors';
import { authorizationSignal } from '../../contracts/install-connector';
import { provisionTemporal } from '../provision-temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { installConnectorWorkflow } from '../../workflows/install-connector';

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  let exchanges = 0;
  const activities: ReturnType<typeof createConnectorActivities> = {
    // The provider does not answer the first exchange; the retry is taken.
    completeAuthorization: async () => {
      exchanges += 1;
      if (exchanges === 1) throw new Error('the token endpoint answered 503');
      return 'active';
    },
    failInstallAttempt: async () => 'authorization_failed',
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
    const expiresAt = () => new Date(Date.now() + 30 * 60_000).toISOString();
    const connected = await env.client.workflow.start(installConnectorWorkflow, {
      taskQueue: 'record',
      workflowId: 'ins_recorded:1',
      args: [{ installation_id: 'ins_recorded', attempt: 1, expires_at: expiresAt() }],
    });
    await connected.signal(authorizationSignal, { kind: 'code', code: 'recorded-code' });
    await connected.result();
    await write('install-connector-code-exchanged-after-a-retry', await connected.fetchHistory());

    const expired = await env.client.workflow.start(installConnectorWorkflow, {
      taskQueue: 'record',
      workflowId: 'ins_recorded:2',
      args: [{ installation_id: 'ins_recorded', attempt: 2, expires_at: expiresAt() }],
    });
    await expired.result();
    await write('install-connector-expired', await expired.fetchHistory());
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
