import type { Client } from '@temporalio/client';
import { HANDOVER_MARGIN_MS } from '../../../services/workflow-starts/batches';
import { STALE_START_MS } from '../../../services/workflow-starts/starts';
import { percentile } from '../load';

/**
 * How late the workflows of answered requests started, from the answer the load generator received to the
 * start Temporal recorded (one machine, one clock): the after-answer queue's lag. A start made by the sweep is
 * one the queue left, at its handover (`STALE_START_MS - HANDOVER_MARGIN_MS` after the commit) or later.
 */
export interface StartLag {
  answered: number;
  /** Not found started in Temporal's visibility when read. */
  notStarted: number;
  /** Started at or after the queue's handover: made by the dispatcher's sweep. */
  leftToSweep: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const HANDOVER_AFTER_MS = STALE_START_MS - HANDOVER_MARGIN_MS;

/** Reads when each workflow of `answeredAt` (workflow id → the answer's time, ms) started. */
export async function startLag(
  client: Client,
  workflowType: string,
  answeredAt: ReadonlyMap<string, number>,
): Promise<StartLag> {
  const first = Math.min(...answeredAt.values());
  const since = new Date(first - 60_000).toISOString();
  const lags: number[] = [];
  for await (const workflow of client.workflow.list({
    query: `WorkflowType = "${workflowType}" AND StartTime >= "${since}"`,
  })) {
    const answered = answeredAt.get(workflow.workflowId);
    if (answered !== undefined) lags.push(workflow.startTime.getTime() - answered);
  }
  lags.sort((a, b) => a - b);
  return {
    answered: answeredAt.size,
    notStarted: answeredAt.size - lags.length,
    leftToSweep: lags.filter((lag) => lag >= HANDOVER_AFTER_MS).length,
    p50Ms: percentile(lags, 50),
    p99Ms: percentile(lags, 99),
    maxMs: lags[lags.length - 1] ?? Number.NaN,
  };
}

/** One line for the bench's output. */
export function describeStartLag(label: string, lag: StartLag): string {
  return `  ${label.padEnd(22)} ${lag.answered} answered: ${lag.leftToSweep} started by the sweep (≥ ${HANDOVER_AFTER_MS / 1000} s after the answer), ${lag.notStarted} not started; answer → start p50 ${lag.p50Ms.toFixed(0)} ms, p99 ${lag.p99Ms.toFixed(0)} ms, max ${lag.maxMs.toFixed(0)} ms`;
}
