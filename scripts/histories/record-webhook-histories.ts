/**
 * Records the webhook workflows' histories the replay test replays: run with
 * `npx tsx scripts/histories/record-webhook-histories.ts` after a deliberate, versioned change to
 * deliverWebhookWorkflow or dispatchOutboxWorkflow, and commit the JSON files.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { SendResult } from '../../activities/webhooks';
import { wakeSignal } from '../../contracts/dispatch-outbox';
import { provisionTemporal } from '../provision-temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { deliverWebhookWorkflow } from '../../workflows/deliver-webhook';
import { dispatchOutboxWorkflow } from '../../workflows/dispatch-outbox';

const sent = (status: number, retryAfter?: number): SendResult => ({
  kind: 'sent',
  url: 'https://receiver.example/hook',
  attempted_at: '2026-11-23T10:00:00.000Z',
  outcome: { status, retry_after_seconds: retryAfter, duration_ms: 12 },
});

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  // The receiver fails, asks to be left alone for two hours, then takes the delivery.
  const answers = [sent(500), sent(429, 7200), sent(200)];
  let attempt = 0;
  let passes = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record',
    workflowBundle: await bundleWorkflows(),
    activities: {
      sendDelivery: async () => answers[Math.min(attempt++, answers.length - 1)],
      projectDelivery: async () => undefined,
      recordDeliveryAttempt: async () => ({ endpoint_disabled: false }),
      dispatchOutboxBatch: async () => ({ events: 1, deliveries: 3, more: passes++ === 0, poll_interval_ms: 5000 }),
    },
  });
  const write = async (name: string, history: Parameters<typeof historyToJSON>[0]) => {
    const file = path.join(__dirname, '../../test/workflows/histories', `${name}.json`);
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`);
    process.stdout.write(`wrote ${file}\n`);
  };
  await worker.runUntil(async () => {
    const delivery = await env.client.workflow.start(deliverWebhookWorkflow, {
      taskQueue: 'record',
      workflowId: 'whdel_recorded',
      args: [
        {
          delivery_id: 'whdel_recorded',
          subscription_id: 'whsub_recorded',
          event: {
            id: 'evt_recorded',
            event: 'routing.escalated',
            created_at: '2026-11-23T10:00:00.000Z',
            data: { task_id: 'rt_recorded', reason: 'ai_confidence_below_threshold', assigned_human: 'did:x:ada' },
          },
          schedule: { delays_seconds: [60, 300, 1800], jitter: 0.2 },
        },
      ],
    });
    await delivery.result();
    await write('deliver-webhook-failed-then-delivered', await delivery.fetchHistory());

    // Two passes (the first batch full), a wait, a wake signal, a third pass; then stopped.
    const dispatcher = await env.client.workflow.start(dispatchOutboxWorkflow, {
      taskQueue: 'record',
      workflowId: 'outbox-dispatcher:record',
    });
    while (passes < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    await dispatcher.signal(wakeSignal);
    while (passes < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    await env.sleep('10 seconds');
    await dispatcher.terminate('recorded');
    await write('dispatch-outbox-woken', await dispatcher.fetchHistory());
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
