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
import { cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { percentile } from './load';
import { procStatusKb, ProcessMeter } from './processes';
import { toMiB, writeResults } from './report';
import { runSuite, say, sleep, startBenchStack, unlessAServiceDies, watchedBy } from './stack';
import { measureFloor } from './webhooks/floor';
import { startReceiver } from './webhooks/receiver';

const EVENTS = 1000;
const SUBSCRIBERS = 3;
const WARM_UP_EVENTS = 100;
const APPEND_CONCURRENCY = 16;
const DELIVERY_TIMEOUT_MS = 15 * 60_000;
const PROGRESS_EVERY_MS = 5000;
const TASK_QUEUE = 'bench-webhooks';
const EVENT_KIND = 'routing.decided';
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'webhooks.json');

async function main(): Promise<void> {
  const receiver = await startReceiver(DELIVERY_TIMEOUT_MS);
  const { database, baseUrl, token, stack, temporalAddress } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1', SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  });
  const { api, worker } = stack;

  await subscribe(baseUrl, token, receiver);
  const emit = emitter(database.db);

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
  const { duplicates, badSignatures } = receiver.counts();
  await receiver.close();
  say(`Floor: ${deliveries} of the same workflows with activities that do nothing, on an in-process worker…`);
  const floorSeconds = await measureFloor(temporalAddress, {
    count: deliveries,
    taskQueue: TASK_QUEUE,
    subscribers: SUBSCRIBERS,
    eventKind: EVENT_KIND,
  });
  const results = figuresOf({
    databaseKind: database.kind,
    deliveries,
    totalSeconds,
    appendSeconds: (appendsDoneAt - startedAt) / 1000,
    floorSeconds,
    latencies,
    counts: { duplicates, badSignatures },
    usage,
    peakRssWholeRunKb: { api: procStatusKb(api.pid, 'VmHWM'), worker: procStatusKb(worker.pid, 'VmHWM') },
  });
  printResults(results, database.kind);
  writeResults(results, RESULTS_FILE);
  if (duplicates > 0 || badSignatures > 0) throw new Error('deliveries were duplicated or badly signed');
}

type WebhookResults = ReturnType<typeof figuresOf>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The receiver's endpoints subscribed through the API, their signing secrets handed to the receiver. */
async function subscribe(baseUrl: string, token: string, receiver: Receiver): Promise<void> {
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
}

/** Appends events as every emitter does, APPEND_CONCURRENCY at a time. */
function emitter(db: Knex) {
  /** Appends `count` events, each in its own provenance record; returns when each one committed. */
  return async (prefix: string, count: number): Promise<Map<string, number>> => {
    const committedAt = new Map<string, number>();
    let next = 0;
    const lane = async () => {
      for (let index = next++; index < count; index = next++) {
        const subject = `${prefix}_${index}`;
        await appendProvenance(db, {
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
}

/** The run's figures: what bench-results/webhooks.json holds. */
function figuresOf(input: {
  databaseKind: string;
  deliveries: number;
  totalSeconds: number;
  appendSeconds: number;
  floorSeconds: number;
  latencies: number[];
  counts: { duplicates: number; badSignatures: number };
  usage: ReturnType<ProcessMeter['usage']>;
  peakRssWholeRunKb: { api: number | undefined; worker: number | undefined };
}) {
  const perDelivery = (seconds: number | undefined) =>
    seconds === undefined ? null : (seconds * 1000) / input.deliveries;
  return {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, database: input.databaseKind },
    settings: {
      events: EVENTS,
      subscribers: SUBSCRIBERS,
      deliveries: input.deliveries,
      appendConcurrency: APPEND_CONCURRENCY,
      warmUpEvents: WARM_UP_EVENTS,
    },
    allDeliveredSeconds: input.totalSeconds,
    appendSeconds: input.appendSeconds,
    deliveriesPerSecond: input.deliveries / input.totalSeconds,
    floorSeconds: input.floorSeconds,
    allDeliveredOverFloor: input.totalSeconds / input.floorSeconds,
    deliveryLatencyMs: {
      p50: percentile(input.latencies, 50),
      p99: percentile(input.latencies, 99),
      max: input.latencies.at(-1) ?? null,
      measured: input.latencies.length,
    },
    ...input.counts,
    cpuMsPerDelivery: {
      api: perDelivery(input.usage.cpuSeconds.api),
      worker: perDelivery(input.usage.cpuSeconds.worker),
      temporal: perDelivery(input.usage.cpuSeconds.temporal),
      postgres: perDelivery(input.usage.cpuSeconds.postgres),
      benchProcess: perDelivery(input.usage.cpuSeconds.benchProcess),
    },
    peakRssMiB: { api: toMiB(input.usage.peakRssKb.api), worker: toMiB(input.usage.peakRssKb.worker) },
    peakRssWholeRunMiB: {
      api: toMiB(input.peakRssWholeRunKb.api),
      worker: toMiB(input.peakRssWholeRunKb.worker),
    },
    machineCpuBusyPercent: input.usage.machineBusyPercent ?? null,
  };
}

/** The run's figures, as a person reads them. */
function printResults(results: WebhookResults, databaseKind: string): void {
  const fixed = (value: number | null | undefined, digits = 1) =>
    value === null || value === undefined ? 'n/a' : value.toFixed(digits);
  say('');
  say(
    `All ${results.settings.deliveries} deliveries arrived ${fixed(results.allDeliveredSeconds, 2)} s after the first event's commit (${fixed(results.deliveriesPerSecond, 0)} deliveries/s).`,
  );
  say(
    `The floor (the same workflows, no I/O) took ${fixed(results.floorSeconds, 2)} s: fan-out took ${fixed(results.allDeliveredOverFloor, 2)}× the floor.`,
  );
  say(
    `The ${results.settings.events} appends took ${fixed(results.appendSeconds, 2)} s at concurrency ${results.settings.appendConcurrency}.`,
  );
  say(
    `Commit to arrival per delivery: p50 ${fixed(results.deliveryLatencyMs.p50, 0)} ms, p99 ${fixed(results.deliveryLatencyMs.p99, 0)} ms, max ${fixed(results.deliveryLatencyMs.max, 0)} ms.`,
  );
  say(`Duplicates: ${results.duplicates}; signatures that failed to verify: ${results.badSignatures}.`);
  const cpu = results.cpuMsPerDelivery;
  say(
    `CPU per delivery (ms): worker ${fixed(cpu.worker, 2)}, Temporal ${fixed(cpu.temporal, 2)}, Postgres ${fixed(cpu.postgres, 2)}, API ${fixed(cpu.api, 2)}, bench process (appends, receiver) ${fixed(cpu.benchProcess, 2)}.`,
  );
  say(
    `Peak RSS while measuring: worker ${fixed(results.peakRssMiB.worker)} MiB, API ${fixed(results.peakRssMiB.api)} MiB; machine CPU busy ${fixed(results.machineCpuBusyPercent)} %.`,
  );
  say(
    `${results.machine.cpus} CPUs, Node ${results.machine.node}, ${databaseKind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}.`,
  );
}

// The SDK logs every worker state change at INFO; the floor's worker shows warnings and errors only.
Runtime.install({ logger: new DefaultLogger('WARN') });
runSuite(main);
