/**
 * `npm run bench -- webhooks`: webhook fan-out. 1,000 events to 3 subscribers on a local receiver; the
 * time from the first event's commit until every one of the 3,000 deliveries has arrived.
 *
 * Sets up its own Temporal dev server, database, API and worker (child processes), and runs the
 * receiver in this process: three endpoints that verify every signature as a subscriber would and
 * count each (endpoint, X-Svc-Delivery-ID) once. Subscriptions are created through the API; events enter
 * as every emitter's do, one appendProvenance each (a provenance record and its outbox event in one
 * statement), 16 at a time. Prints the figures and writes them to bench-results/webhooks.json.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { DISPATCH_START_CONCURRENCY } from '../../activities/webhooks';
import { appendProvenance } from '../../db/ledger';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { DEFAULT_RETRY_SCHEDULE } from '../../domain/webhooks/rules';
import { verifySignature } from '../../lib/outbound/signature';
import { startDelivery } from '../../services/webhooks/deliveries';
import { deliveryTaskQueueOf } from '../../contracts/deliver-webhook';
import { bundleWorkflows } from '../../workers/create-worker';
import { percentile } from './load';
import { procStatusKb, ProcessMeter } from './processes';
import { toMiB, writeResults } from './report';
import { NAMESPACE, onTearDown, runSuite, say, sleep, startBenchStack, unlessAServiceDies, watchedBy } from './stack';

const EVENTS = 1000;
const SUBSCRIBERS = 3;
const WARM_UP_EVENTS = 100;
const APPEND_CONCURRENCY = 16;
const DELIVERY_TIMEOUT_MS = 15 * 60_000;
const PROGRESS_EVERY_MS = 5000;
const TASK_QUEUE = 'bench-webhooks';
const EVENT_KIND = 'routing.decided';
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'webhooks.json');

/** Three subscriber endpoints on one local server; each delivery is kept once per endpoint and delivery id. */
async function startReceiver() {
  const secrets = new Map<string, string>();
  /** When each (endpoint, delivery id) first arrived, and the subject its event came from. */
  const arrivals = new Map<string, { at: number; subject: string }>();
  let duplicates = 0;
  let badSignatures = 0;
  let onArrival = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const endpoint = req.url ?? '/';
      const secret = secrets.get(endpoint);
      const verified =
        secret !== undefined && verifySignature(req.headers['x-svc-signature'] as string, body, secret).ok;
      if (!verified) {
        badSignatures += 1;
        res.writeHead(400).end();
        return;
      }
      const key = `${endpoint} ${req.headers['x-svc-delivery-id'] as string}`;
      if (arrivals.has(key)) duplicates += 1;
      else arrivals.set(key, { at, subject: (JSON.parse(body) as { data: { routing_id: string } }).data.routing_id });
      res.writeHead(204).end();
      onArrival();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (endpoint: string) => `http://127.0.0.1:${port}${endpoint}`,
    knowSecret: (endpoint: string, secret: string) => secrets.set(endpoint, secret),
    arrivals,
    counts: () => ({ duplicates, badSignatures }),
    /** Resolves once `count` distinct deliveries have arrived. */
    waitForArrivals(count: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`only ${arrivals.size} of ${count} deliveries arrived within ${DELIVERY_TIMEOUT_MS / 1000} s`),
            ),
          DELIVERY_TIMEOUT_MS,
        );
        onArrival = () => {
          if (arrivals.size < count) return;
          clearTimeout(timer);
          resolve();
        };
        onArrival();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The floor: as many of the same delivery workflows, started the way the dispatcher starts them, on an
 * in-process worker whose activities do nothing (no Postgres, no HTTP), with the SDK's worker defaults as the service's.
 * What Temporal and the SDK alone take on this server for this many deliveries.
 */
async function measureFloor(address: string, count: number): Promise<number> {
  const connection = await NativeConnection.connect({ address });
  onTearDown(() => connection.close());
  const client = new Client({ connection, namespace: NAMESPACE });
  let recorded = 0;
  let allRecorded = () => {};
  const done = new Promise<void>((resolve) => {
    allRecorded = resolve;
  });
  const taskQueue = `${TASK_QUEUE}-floor`;
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
            subscription_id: `whsub_floor_${index % SUBSCRIBERS}`,
            event: {
              id: `evt_floor_${Math.floor(index / SUBSCRIBERS)}`,
              event: EVENT_KIND,
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

async function main(): Promise<void> {
  const receiver = await startReceiver();
  const { database, baseUrl, token, stack, temporalAddress } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1', SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  });
  const { api, worker } = stack;

  say(`Subscribing ${SUBSCRIBERS} endpoints of a local receiver to ${EVENT_KIND}…`);
  for (let index = 1; index <= SUBSCRIBERS; index += 1) {
    const endpoint = `/subscriber-${index}`;
    const response = await fetch(`${baseUrl}/v1/orch/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: receiver.url(endpoint),
        events: [EVENT_KIND],
        description: `bench subscriber ${index}`,
      }),
    });
    const created = (await response.json()) as { secret?: string };
    if (response.status !== 201 || !created.secret)
      throw new Error(`creating a subscription answered ${response.status}: ${JSON.stringify(created)}`);
    receiver.knowSecret(endpoint, created.secret);
  }

  /** Appends `count` events, each in its own provenance record; returns when each one committed. */
  const emit = async (prefix: string, count: number): Promise<Map<string, number>> => {
    const committedAt = new Map<string, number>();
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < count; index = next++) {
        const subject = `${prefix}_${index}`;
        await appendProvenance(database.db, {
          entry: {
            subject_id: subject,
            step_id: 'bench',
            timestamp: new Date().toISOString(),
            actor: { type: 'orch_core', did: ORCH_CORE_DID },
            action: 'bench_event',
            input_data: {},
            output_data: {},
            reasoning: 'webhook fan-out benchmark',
          },
          events: [
            {
              event: EVENT_KIND,
              data: { routing_id: subject, decision: 'ai_autonomous', reason: 'within_ai_authority' },
            },
          ],
        });
        committedAt.set(subject, performance.now());
      }
    };
    await Promise.all(Array.from({ length: APPEND_CONCURRENCY }, lane));
    return committedAt;
  };

  // Not measured: JIT, pools, the workflow cache warm up.
  say(`Warm-up: ${WARM_UP_EVENTS} events…`);
  await emit(`warm_${randomBytes(3).toString('hex')}`, WARM_UP_EVENTS);
  await unlessAServiceDies(receiver.waitForArrivals(WARM_UP_EVENTS * SUBSCRIBERS), [api, worker]);
  const warmArrivals = receiver.arrivals.size;
  await sleep(2000);

  const meter = new ProcessMeter(watchedBy(stack));
  say(`Measuring: ${EVENTS} events to ${SUBSCRIBERS} subscribers (${EVENTS * SUBSCRIBERS} deliveries)…`);
  const expected = warmArrivals + EVENTS * SUBSCRIBERS;
  const prefix = `bench_${randomBytes(3).toString('hex')}`;
  const startedAt = performance.now();
  let committedAt = new Map<string, number>();
  let appendsDoneAt = 0;
  const progress = setInterval(() => {
    void database
      .db('outbox_events')
      .whereNotNull('dispatched_at')
      .count<{ count: number }[]>({ count: '*' })
      .then(([dispatched]) => {
        say(
          `  ${((performance.now() - startedAt) / 1000).toFixed(0).padStart(3)} s: ${dispatched!.count - WARM_UP_EVENTS} events dispatched, ${receiver.arrivals.size - warmArrivals} deliveries arrived`,
        );
      });
  }, PROGRESS_EVERY_MS);
  await meter.measure(() =>
    unlessAServiceDies(
      Promise.all([
        emit(prefix, EVENTS).then((times) => {
          committedAt = times;
          appendsDoneAt = performance.now();
        }),
        receiver.waitForArrivals(expected),
      ]),
      [api, worker],
    ),
  );
  clearInterval(progress);
  const measured = [...receiver.arrivals.values()].filter((arrival) => committedAt.has(arrival.subject));
  const lastArrival = Math.max(...measured.map((arrival) => arrival.at));
  // Each delivery's latency: from its event's commit to its arrival at the endpoint.
  const latencies = measured.map((arrival) => arrival.at - committedAt.get(arrival.subject)!);
  latencies.sort((a, b) => a - b);
  const usage = meter.usage();
  const deliveries = EVENTS * SUBSCRIBERS;
  const totalSeconds = (lastArrival - startedAt) / 1000;
  const perDelivery = (seconds: number | undefined) => (seconds === undefined ? null : (seconds * 1000) / deliveries);
  const { duplicates, badSignatures } = receiver.counts();
  await receiver.close();
  say(`Floor: ${deliveries} of the same workflows with activities that do nothing, on an in-process worker…`);
  const floorSeconds = await measureFloor(temporalAddress, deliveries);
  const results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, database: database.kind },
    settings: {
      events: EVENTS,
      subscribers: SUBSCRIBERS,
      deliveries,
      appendConcurrency: APPEND_CONCURRENCY,
      warmUpEvents: WARM_UP_EVENTS,
    },
    allDeliveredSeconds: totalSeconds,
    appendSeconds: (appendsDoneAt - startedAt) / 1000,
    deliveriesPerSecond: deliveries / totalSeconds,
    floorSeconds,
    allDeliveredOverFloor: totalSeconds / floorSeconds,
    deliveryLatencyMs: {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? null,
      measured: latencies.length,
    },
    duplicates,
    badSignatures,
    cpuMsPerDelivery: {
      api: perDelivery(usage.cpuSeconds.api),
      worker: perDelivery(usage.cpuSeconds.worker),
      temporal: perDelivery(usage.cpuSeconds.temporal),
      postgres: perDelivery(usage.cpuSeconds.postgres),
      benchProcess: perDelivery(usage.cpuSeconds.benchProcess),
    },
    peakRssMiB: { api: toMiB(usage.peakRssKb.api), worker: toMiB(usage.peakRssKb.worker) },
    peakRssWholeRunMiB: {
      api: toMiB(procStatusKb(api.pid, 'VmHWM')),
      worker: toMiB(procStatusKb(worker.pid, 'VmHWM')),
    },
    machineCpuBusyPercent: usage.machineBusyPercent ?? null,
  };

  const fixed = (value: number | null | undefined, digits = 1) =>
    value === null || value === undefined ? 'n/a' : value.toFixed(digits);
  say('');
  say(
    `All ${deliveries} deliveries arrived ${fixed(results.allDeliveredSeconds, 2)} s after the first event's commit (${fixed(results.deliveriesPerSecond, 0)} deliveries/s).`,
  );
  say(
    `The floor (the same workflows, no I/O) took ${fixed(floorSeconds, 2)} s: fan-out took ${fixed(totalSeconds / floorSeconds, 2)}× the floor.`,
  );
  say(`The ${EVENTS} appends took ${fixed(results.appendSeconds, 2)} s at concurrency ${APPEND_CONCURRENCY}.`);
  say(
    `Commit to arrival per delivery: p50 ${fixed(results.deliveryLatencyMs.p50, 0)} ms, p99 ${fixed(results.deliveryLatencyMs.p99, 0)} ms, max ${fixed(results.deliveryLatencyMs.max, 0)} ms.`,
  );
  say(`Duplicates: ${duplicates}; signatures that failed to verify: ${badSignatures}.`);
  const cpu = results.cpuMsPerDelivery;
  say(
    `CPU per delivery (ms): worker ${fixed(cpu.worker, 2)}, Temporal ${fixed(cpu.temporal, 2)}, Postgres ${fixed(cpu.postgres, 2)}, API ${fixed(cpu.api, 2)}, bench process (appends, receiver) ${fixed(cpu.benchProcess, 2)}.`,
  );
  say(
    `Peak RSS while measuring: worker ${fixed(results.peakRssMiB.worker)} MiB, API ${fixed(results.peakRssMiB.api)} MiB; machine CPU busy ${fixed(results.machineCpuBusyPercent)} %.`,
  );
  say(
    `${results.machine.cpus} CPUs, Node ${results.machine.node}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}.`,
  );
  writeResults(results, RESULTS_FILE);
  if (duplicates > 0 || badSignatures > 0) throw new Error('deliveries were duplicated or badly signed');
}

// The SDK logs every worker state change at INFO; the floor's worker shows warnings and errors only.
Runtime.install({ logger: new DefaultLogger('WARN') });
runSuite(main);
