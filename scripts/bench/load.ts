/** A closed-loop load generator and the latency and throughput figures of its runs. */
import { performance } from 'node:perf_hooks';

/** One request: resolves when the answer is the expected one, otherwise says why not. */
export type Send = (index: number) => Promise<{ ok: true } | { ok: false; error: string }>;

export interface LoadRun {
  latenciesMs: number[];
  errors: number;
  errorSamples: string[];
  wallSeconds: number;
}

export interface LoadFigures {
  requests: number;
  errors: number;
  /** The first few distinct errors, to print. */
  errorSamples: string[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  throughputPerSecond: number;
  wallSeconds: number;
}

const ERROR_SAMPLES = 5;

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * `concurrency` callers each send their next request as soon as their last one answered (or `pauseMs` after
 * it, a caller's think time), until `count` were sent. Latency counts every request, the failed ones too, so
 * errors cannot flatter the figures.
 */
export async function runClosedLoop(options: {
  count: number;
  concurrency: number;
  send: Send;
  firstIndex?: number;
  pauseMs?: number;
}): Promise<LoadRun> {
  const latenciesMs: number[] = [];
  const errorSamples = new Set<string>();
  let errors = 0;
  let next = 0;
  const caller = async () => {
    for (let index = next++; index < options.count; index = next++) {
      const startedAt = performance.now();
      const outcome = await options
        .send((options.firstIndex ?? 0) + index)
        .catch((error: unknown) => ({ ok: false as const, error: messageOf(error) }));
      latenciesMs.push(performance.now() - startedAt);
      if (!outcome.ok) {
        errors += 1;
        if (errorSamples.size < ERROR_SAMPLES) errorSamples.add(outcome.error);
      }
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  };
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, caller));
  return { latenciesMs, errors, errorSamples: [...errorSamples], wallSeconds: (performance.now() - startedAt) / 1000 };
}

/** The figures of several runs taken as one: latencies pooled, throughput over their summed wall time. */
export function summarize(runs: LoadRun[]): LoadFigures {
  const latencies = runs.flatMap((run) => run.latenciesMs).sort((a, b) => a - b);
  const wallSeconds = runs.reduce((sum, run) => sum + run.wallSeconds, 0);
  return {
    requests: latencies.length,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    errorSamples: [...new Set(runs.flatMap((run) => run.errorSamples))].slice(0, ERROR_SAMPLES),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    throughputPerSecond: latencies.length / wallSeconds,
    wallSeconds,
  };
}
