import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DISPATCH_START_CONCURRENCY } from '../../../activities/webhooks';
import { deliveryTaskQueueOf } from '../../../contracts/deliver-webhook';
import { DEFAULT_RETRY_SCHEDULE } from '../../../domain/webhooks/rules';
import { startDelivery } from '../../../services/webhooks/deliveries';
import { bundleWorkflows } from '../../../workers/create-worker';
import { NAMESPACE, onTearDown } from '../stack';

/**
 * The floor: as many of the same delivery workflows, started the way the dispatcher starts them, on an
 * in-process worker whose activities do nothing (no Postgres, no HTTP), with the SDK's worker defaults as the service's.
 * What Temporal and the SDK alone take on this server for this many deliveries.
 */
export async function measureFloor(
  address: string,
  options: { count: number; taskQueue: string; subscribers: number; eventKind: string },
): Promise<number> {
  const { count, subscribers, eventKind } = options;
  const connection = await NativeConnection.connect({ address });
  onTearDown(() => connection.close());
  const client = new Client({ connection, namespace: NAMESPACE });
  let recorded = 0;
  let allRecorded = () => {};
  const done = new Promise<void>((resolve) => {
    allRecorded = resolve;
  });
  const taskQueue = `${options.taskQueue}-floor`;
  const worker = await Worker.create({
    connection,
    namespace: NAMESPACE,
    taskQueue: deliveryTaskQueueOf(taskQueue),
    workflowBundle: await bundleWorkflows(),
    activities: {
      projectDelivery: () => Promise.resolve(undefined),
      sendDelivery: () =>
        Promise.resolve({
          kind: 'sent',
          url: 'http://floor.invalid/',
          attempted_at: new Date().toISOString(),
          outcome: { status: 204, duration_ms: 0 },
        }),
      recordDeliveryAttempt: () => {
        recorded += 1;
        if (recorded === count) allRecorded();
        return Promise.resolve({ endpoint_disabled: false });
      },
    },
  });
  return worker.runUntil(async () => {
    const startedAt = performance.now();
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < count; index = next++) {
        await startDelivery(
          client,
          taskQueue,
          {
            delivery_id: `whdel_floor_${index}`,
            subscription_id: `whsub_floor_${index % subscribers}`,
            event: {
              id: `evt_floor_${Math.floor(index / subscribers)}`,
              event: eventKind,
              created_at: new Date().toISOString(),
              data: {},
            },
            schedule: DEFAULT_RETRY_SCHEDULE,
          },
          'org_floor',
        );
      }
    };
    await Promise.all(Array.from({ length: DISPATCH_START_CONCURRENCY }, lane));
    await done;
    return (performance.now() - startedAt) / 1000;
  });
}
