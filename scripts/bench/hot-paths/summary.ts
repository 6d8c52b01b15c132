import { cpus } from 'node:os';
import type { LoadFigures } from '../load';
import { fixed } from '../report';
import { DEV_SERVER_NICENESS } from '../../temporal-dev-server';
import { say } from '../stack';
import type { StartLag } from './start-lag';

/** CPU milliseconds per operation, by process. */
export type CpuPerOperation = Record<string, number | undefined>;
export type Figures = Omit<LoadFigures, 'errorSamples'> & {
  errorSamples: string[];
  cpuMsPerOperation: CpuPerOperation;
  /** From the last answer until the stack had settled (at least one quiet settle window, 0.5 s). */
  settledAfterSeconds: number;
  /** Of a path that starts a workflow behind its answer: when the answers came, then how late the starts were. */
  answeredAt?: Map<string, number>;
  startLag?: StartLag;
};
/** By path: back to back at c=1, at c=32, and paced (one caller pausing between requests). */
export type Measured = Record<string, Record<'c1' | 'c32' | 'paced', Figures>>;

export interface Held {
  count: number;
  open: Figures;
  workerRssBeforeMiB: number | null;
  caughtUpWithinSeconds: number;
  workerRssPeakWhileCatchingUpMiB: number | null;
  workerRssMiB: number | null;
  workerRssIdleMiB: number | null;
  idleReadAfterSeconds: number;
  answerSerial: Figures;
  answerParallel: Figures;
  carriedOnWithinSeconds: number;
}

const WORKER_RSS_LIMIT_MIB = 500;

/**
 * The issue's targets, each against the floor or the LangGraph-over-HTTP peer of the same run; those of the held
 * approvals only when they were held (HANDOFF_BENCH_HELD > 0).
 */
export function judgeHotPaths(measured: Measured, held: Held | undefined, recordsHold: boolean) {
  const m = (name: string) => measured[name]!;
  const peerOpen = m('langGraphHttpInterrupt');
  const peerAnswer = m('langGraphHttpResume');
  const ratios = {
    routingC32ThroughputOverFloor: m('routing').c32.throughputPerSecond / m('floor').c32.throughputPerSecond,
    openC32ThroughputOverPeer: m('open').c32.throughputPerSecond / peerOpen.c32.throughputPerSecond,
    openC32P99OverPeer: m('open').c32.p99Ms / peerOpen.c32.p99Ms,
    answerC32ThroughputOverPeer: m('answer').c32.throughputPerSecond / peerAnswer.c32.throughputPerSecond,
    answerC32P99OverPeer: m('answer').c32.p99Ms / peerAnswer.c32.p99Ms,
  };
  const apiCpuPerRouting = m('routing').c32.cpuMsPerOperation.api;
  const targets = {
    'routing c=1 p50 ≤ 10 ms': m('routing').c1.p50Ms <= 10,
    'open c=1 p50 ≤ 10 ms': m('open').c1.p50Ms <= 10,
    'answer c=1 p50 ≤ LangGraph-over-HTTP resume c=1 p50': m('answer').c1.p50Ms <= peerAnswer.c1.p50Ms,
    'routing c=32 throughput ≥ 0.6× floor': ratios.routingC32ThroughputOverFloor >= 0.6,
    'open c=32: rate ≥ and p99 ≤ LangGraph-over-HTTP interrupt':
      ratios.openC32ThroughputOverPeer >= 1 && ratios.openC32P99OverPeer <= 1,
    'answer c=32: rate ≥ and p99 ≤ LangGraph-over-HTTP resume':
      ratios.answerC32ThroughputOverPeer >= 1 && ratios.answerC32P99OverPeer <= 1,
    'routing paced p50 ≤ 10 ms': m('routing').paced.p50Ms <= 10,
    'open paced p50 ≤ 10 ms': m('open').paced.p50Ms <= 10,
    'answer paced p50 ≤ LangGraph-over-HTTP resume paced p50': m('answer').paced.p50Ms <= peerAnswer.paced.p50Ms,
    'API CPU per routing (c=32) ≤ 3 ms': apiCpuPerRouting !== undefined && apiCpuPerRouting <= 3,
    ...(held && heldTargets(held, peerAnswer)),
    'nothing lost or decided twice': recordsHold,
  };
  return { ratios, targets };
}

function heldTargets(held: Held, peerAnswer: Measured[string]): Record<string, boolean> {
  return {
    [`worker RSS with ${held.count} open < ${WORKER_RSS_LIMIT_MIB} MiB`]:
      held.workerRssMiB !== null && held.workerRssMiB < WORKER_RSS_LIMIT_MIB,
    [`answers with ${held.count} open: c=1 p50 ≤ LangGraph-over-HTTP resume c=1 p50`]:
      held.answerSerial.p50Ms <= peerAnswer.c1.p50Ms,
    [`answers with ${held.count} open: c=32 p99 ≤ LangGraph-over-HTTP resume c=32 p99`]:
      held.answerParallel.p99Ms <= peerAnswer.c32.p99Ms,
  };
}

export function printHotPaths(
  measured: Measured,
  held: Held | undefined,
  judged: ReturnType<typeof judgeHotPaths>,
  counts: object,
  databaseKind: string,
) {
  say('');
  say(
    [
      'path'.padEnd(22),
      ...['c=1 p50', 'c=1 p99', 'c=32 /s', 'c=32 p50', 'c=32 p99', 'paced p50', 'paced p99'].map((head) =>
        head.padStart(9),
      ),
    ].join(' '),
  );
  for (const [name, { c1, c32, paced }] of Object.entries(measured)) {
    const cells = [c1.p50Ms, c1.p99Ms, c32.throughputPerSecond, c32.p50Ms, c32.p99Ms, paced.p50Ms, paced.p99Ms];
    say([name.padEnd(22), ...cells.map((value) => fixed(value).padStart(9))].join(' '));
  }
  say('CPU ms per operation at c=32, by process, until the stack had settled after the last answer:');
  for (const [name, figures] of Object.entries(measured)) {
    const byProcess = Object.entries(figures.c32.cpuMsPerOperation)
      .map(([process, ms]) => `${process} ${fixed(ms ?? null, 2)}`)
      .join(', ');
    say(`  ${name.padEnd(22)} ${byProcess}`);
  }
  if (held)
    say(
      `held ${held.count}: open ${fixed(held.open.throughputPerSecond)}/s; worker caught up after ${fixed(held.caughtUpWithinSeconds, 0)} s (RSS peak ${fixed(held.workerRssPeakWhileCatchingUpMiB, 0)} MiB); worker RSS ${fixed(held.workerRssMiB, 0)} MiB (${fixed(held.workerRssIdleMiB, 0)} MiB after ${held.idleReadAfterSeconds} s idle); answers c=1 p50 ${fixed(held.answerSerial.p50Ms)} ms, c=32 p99 ${fixed(held.answerParallel.p99Ms)} ms (${fixed(held.answerParallel.throughputPerSecond)}/s)`,
    );
  say(
    `ratios: ${Object.entries(judged.ratios)
      .map(([name, value]) => `${name} ${value.toFixed(2)}`)
      .join(', ')}`,
  );
  say(`counts: ${JSON.stringify(counts)}`);
  for (const [target, met] of Object.entries(judged.targets)) say(`  ${met ? 'met   ' : 'MISSED'} ${target}`);
  say(
    `${cpus().length} CPUs, Node ${process.version}, ${databaseKind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}; one API and one worker process, the LangGraph peer's server process; Temporal dev server in memory at nice ${DEV_SERVER_NICENESS}, as npm start runs it; the machine may be shared with other work: compare the ratios of one run.`,
  );
}
