import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ApprovalRequest, ApprovalState } from '../../contracts/approval';
import { expiryTransition, nextDeadlineMs } from '../../domain/approvals/expiry';
import { approvalRecord, endedTransition } from '../../domain/approvals/steps';
import type { AppendProvenanceInput, LedgerAnchor } from '../../domain/provenance/records';
import { registerSearchAttributes } from '../../app/temporal';
import { sharedWorkflowBundle } from './stack';

/** The time-skipping test server of the run, with our search attributes registered. */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
  return env;
}

/**
 * Runs a test with a worker of its own on a fresh task queue, then terminates the workflows the test named
 * in `started` if they still run: one left with an activity scheduled and no worker would stop the
 * time-skipping server from skipping time for every later test.
 */
export async function withWorker<T>(
  env: TestWorkflowEnvironment,
  activities: object,
  run: (taskQueue: string) => Promise<T>,
  started: Set<string> = new Set(),
): Promise<T> {
  const taskQueue = `wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await sharedWorkflowBundle(),
    activities,
  });
  try {
    return await worker.runUntil(run(taskQueue));
  } finally {
    for (const id of started)
      await env.client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined);
    started.clear();
  }
}

/** Provenance kept in memory the way the ledger keeps it: one record per (subject, step), a retry gets the first anchor. */
export function inMemoryLedger() {
  const appended: AppendProvenanceInput[] = [];
  return {
    appended,
    record(provenance: AppendProvenanceInput): LedgerAnchor {
      const index = appended.findIndex(
        (a) => a.entry.subject_id === provenance.entry.subject_id && a.entry.step_id === provenance.entry.step_id,
      );
      if (index < 0) appended.push(provenance);
      const at = index < 0 ? appended.length : index + 1;
      return { transaction_id: `tx-${at}`, block_number: at };
    },
    clear() {
      appended.length = 0;
    },
  };
}

/**
 * The claimApprovalEnding activity over states a test keeps: ends a pending request (recording its
 * transition), or returns it as it stands when an answer ended it first.
 */
export function inMemoryApprovalEnding(
  latest: (approvalId: string) => ApprovalState | undefined,
  record: (provenance: AppendProvenanceInput) => LedgerAnchor,
  keep: (state: ApprovalState) => void,
) {
  return async ({
    request,
    ending,
    at,
  }: {
    request: ApprovalRequest;
    ending: 'expired' | 'workflow_cancelled';
    at: string;
  }): Promise<ApprovalState> => {
    const current = latest(request.approval_id);
    if (!current) throw new Error(`no state kept for ${request.approval_id}`);
    if (current.status !== 'pending') return current;
    const next = nextDeadlineMs(
      current.escalation_level ?? 0,
      Date.parse(current.created_at),
      Date.parse(current.expires_at),
    );
    const transition =
      ending === 'expired'
        ? expiryTransition(current, new Date(next).toISOString())
        : endedTransition(request, { kind: ending }, at);
    const state: ApprovalState = { ...current, ...transition.changes, version: current.version + 1, updated_at: at };
    const anchor = record(approvalRecord(request, state, transition, at));
    const ended = { ...state, provenance_id: anchor.transaction_id };
    keep(ended);
    return ended;
  };
}
