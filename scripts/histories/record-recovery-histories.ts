/**
 * Records the recovery workflow's histories the replay test replays: run with
 * `npx tsx scripts/histories/record-recovery-histories.ts` after a deliberate, versioned change to
 * recoverPassportWorkflow, and commit the JSON files. The activities are the tests' in-memory ones.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { registerSearchAttributes } from '../../app/temporal';
import {
  approveRecoveryUpdate,
  cancelRecoveryUpdate,
  confirmRecoveryUpdate,
  recoveryQuery,
  type ConfirmRecoveryInput,
} from '../../contracts/recover-passport';
import { bundleWorkflows } from '../../workers/create-worker';
import { recoverPassportWorkflow } from '../../workflows/recover-passport';
import {
  HOUR_S,
  approvalBy,
  inMemoryRecoveryActivities,
  openedRequest,
  rightCode,
} from '../../test/support/recovery-workflow';
import { provisionTemporal } from '../provision-temporal';

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
  const memory = inMemoryRecoveryActivities();
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record',
    workflowBundle: await bundleWorkflows(),
    activities: memory.activities,
  });
  const write = async (name: string, history: Parameters<typeof historyToJSON>[0]) => {
    const file = path.join(__dirname, '../../test/workflows/histories', `${name}.json`);
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  };
  const open = async (id: string) => {
    const opened = openedRequest(await env.currentTimeMs(), { request_id: id });
    const handle = await env.client.workflow.start(recoverPassportWorkflow, {
      taskQueue: 'record',
      workflowId: id,
      args: [opened.state],
    });
    for (const guardian of opened.guardians.slice(0, 2)) {
      const stamped = new Date(await env.currentTimeMs()).toISOString();
      await handle.executeUpdate(approveRecoveryUpdate, { args: [approvalBy(guardian, opened.state, stamped)] });
    }
    return { ...opened, handle };
  };
  await worker.runUntil(async () => {
    const completed = await open('rcv_recorded_completed');
    await env.sleep(48 * HOUR_S * 1000);
    while ((await completed.handle.query(recoveryQuery)).status !== 'awaiting_confirmation')
      await new Promise((resolve) => setTimeout(resolve, 50));
    const attempt = (code_hmac: string): { args: [ConfirmRecoveryInput] } => ({
      args: [{ code_hmac, principal: 'sub:recorded' }],
    });
    await completed.handle.executeUpdate(confirmRecoveryUpdate, { ...attempt('hmac:wrong') });
    await completed.handle.executeUpdate(confirmRecoveryUpdate, { ...attempt(rightCode(completed.state.request_id)) });
    await completed.handle.result();
    await write('recover-passport-time-locked-then-wrong-then-right-code', await completed.handle.fetchHistory());

    const cancelled = await open('rcv_recorded_cancelled');
    await env.sleep(HOUR_S * 1000);
    await cancelled.handle.executeUpdate(cancelRecoveryUpdate, { args: [{ owner: cancelled.owner }] });
    await cancelled.handle.result();
    await write('recover-passport-cancelled-during-time-lock', await cancelled.handle.fetchHistory());
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
