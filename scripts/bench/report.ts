/** The figures of a run: routing against the floor, judged against the targets, as a table and as JSON. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { summarize, type LoadFigures, type LoadRun } from './load';
import type { Usage } from './processes';

/** Routing may take at most this much longer at p99, and must keep at least this share of the floor's throughput. */
const TARGETS = { maxP99Ratio: 1.5, minThroughputRatio: 0.6 };

const say = (line: string) => process.stdout.write(`${line}\n`);

export type Kind = 'routing' | 'floor';

export interface PhaseFigures extends LoadFigures {
  /** Highest resident memory sampled while this kind of load ran, in MiB. */
  peakRssMiB: { api: number | null; worker: number | null };
  /** CPU time used while this kind of load ran, divided by its requests; `loadGenerator` is this process. */
  cpuMsPerRequest: {
    api: number | null;
    worker: number | null;
    temporal: number | null;
    postgres: number | null;
    loadGenerator: number | null;
  };
  /** How busy all cores were, whoever used them; far above the sum of ours means something else competed. */
  machineCpuBusyPercent: number | null;
}

export const toMiB = (kb: number | undefined) => (kb === undefined ? null : kb / 1024);

export function phaseFigures(runs: LoadRun[], usage: Usage): PhaseFigures {
  const figures = summarize(runs);
  const perRequest = (seconds: number | undefined) =>
    seconds === undefined ? null : (seconds * 1000) / figures.requests;
  return {
    ...figures,
    peakRssMiB: { api: toMiB(usage.peakRssKb.api), worker: toMiB(usage.peakRssKb.worker) },
    cpuMsPerRequest: {
      api: perRequest(usage.cpuSeconds.api),
      worker: perRequest(usage.cpuSeconds.worker),
      temporal: perRequest(usage.cpuSeconds.temporal),
      postgres: perRequest(usage.cpuSeconds.postgres),
      loadGenerator: perRequest(usage.cpuSeconds.loadGenerator),
    },
    machineCpuBusyPercent: usage.machineBusyPercent ?? null,
  };
}

export interface Results {
  generatedAt: string;
  machine: { cpus: number; node: string; database: 'postgres' | 'embedded' };
  settings: { requests: number; warmUpRequests: number; concurrency: number; rounds: number };
  routing: PhaseFigures;
  floor: PhaseFigures;
  ratios: { p99: number; throughput: number };
  targets: { p99: { maxRatio: number; pass: boolean }; throughput: { minRatio: number; pass: boolean } };
  /** VmHWM: the highest resident memory of each process over its whole life, start-up included. */
  peakRssWholeRunMiB: { api: number | null; worker: number | null };
}

export function judge(routing: PhaseFigures, floor: PhaseFigures): Pick<Results, 'ratios' | 'targets'> {
  const p99 = routing.p99Ms / floor.p99Ms;
  const throughput = routing.throughputPerSecond / floor.throughputPerSecond;
  return {
    ratios: { p99, throughput },
    targets: {
      p99: { maxRatio: TARGETS.maxP99Ratio, pass: routing.errors === 0 && p99 <= TARGETS.maxP99Ratio },
      throughput: {
        minRatio: TARGETS.minThroughputRatio,
        pass: routing.errors === 0 && throughput >= TARGETS.minThroughputRatio,
      },
    },
  };
}

export const fixed = (value: number | null, digits = 1) => (value === null ? 'n/a' : value.toFixed(digits));

function tableRows(results: Results): string[][] {
  const { routing, floor, ratios, targets } = results;
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  const both = (label: string, pick: (phase: PhaseFigures) => number | null) => [
    label,
    fixed(pick(routing)),
    fixed(pick(floor)),
    '',
    '',
    '',
  ];
  return [
    ['', 'routing', 'floor', 'routing/floor', 'target', 'result'],
    ['requests', String(routing.requests), String(floor.requests), '', '', ''],
    ['errors', String(routing.errors), String(floor.errors), '', '0', routing.errors === 0 ? 'PASS' : 'MISS'],
    ['p50 latency (ms)', fixed(routing.p50Ms), fixed(floor.p50Ms), fixed(routing.p50Ms / floor.p50Ms, 2), '', ''],
    [
      'p99 latency (ms)',
      fixed(routing.p99Ms),
      fixed(floor.p99Ms),
      fixed(ratios.p99, 2),
      `<= ${TARGETS.maxP99Ratio.toFixed(2)}`,
      verdict(targets.p99.pass),
    ],
    ['max latency (ms)', fixed(routing.maxMs), fixed(floor.maxMs), '', '', ''],
    [
      'throughput (req/s)',
      fixed(routing.throughputPerSecond),
      fixed(floor.throughputPerSecond),
      fixed(ratios.throughput, 2),
      `>= ${TARGETS.minThroughputRatio.toFixed(2)}`,
      verdict(targets.throughput.pass),
    ],
    both('API peak RSS in phase (MiB)', (phase) => phase.peakRssMiB.api),
    both('worker peak RSS in phase (MiB)', (phase) => phase.peakRssMiB.worker),
    both('API CPU per request (ms)', (phase) => phase.cpuMsPerRequest.api),
    both('worker CPU per request (ms)', (phase) => phase.cpuMsPerRequest.worker),
    both('Temporal CPU per request (ms)', (phase) => phase.cpuMsPerRequest.temporal),
    both('Postgres CPU per request (ms)', (phase) => phase.cpuMsPerRequest.postgres),
    both('load generator CPU per request (ms)', (phase) => phase.cpuMsPerRequest.loadGenerator),
    both('machine CPU busy (%)', (phase) => phase.machineCpuBusyPercent),
  ];
}

export function printTable(results: Results): void {
  const rows = tableRows(results);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  say('');
  for (const row of rows)
    say(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
        .join('   '),
    );
  say('');
  const { peakRssWholeRunMiB: peak, machine } = results;
  say(
    `Peak RSS over each process's life (VmHWM, start-up included): API ${fixed(peak.api)} MiB, worker ${fixed(peak.worker)} MiB.`,
  );
  say(
    `${machine.cpus} CPUs, Node ${machine.node}, ${machine.database === 'postgres' ? 'local Postgres server' : "embedded Postgres (its CPU counts as the load generator's)"}.`,
  );
  say('The floor goes client → Temporal → worker, without HTTP or the API process.');
}

export function writeResults(results: object, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  // Three decimals are more than the run-to-run noise.
  const rounded = (_key: string, value: unknown) =>
    typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 1000) / 1000 : value;
  writeFileSync(file, `${JSON.stringify(results, rounded, 2)}\n`);
  say(`Wrote ${path.relative(process.cwd(), file)}`);
}
