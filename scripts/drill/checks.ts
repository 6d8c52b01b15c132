/**
 * What every drill ends with: each acknowledged request against PostgreSQL (exactly one row, with the
 * acknowledged id) and against its workflow (it exists, and its state agrees with the row), then every
 * pending approval answered twice at once (exactly one 200, the other 409).
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { approvalQuery } from '../../contracts/approval';
import { outboxDispatcherId } from '../../contracts/dispatch-outbox';
import { statusQuery } from '../../contracts/route-task';
import type { Db } from '../../db/connection';
import type { Sent, Tally } from './load';
import { sleep, TASK_QUEUE } from './stack';

export interface Counts {
  acknowledged: number;
  lost: number;
  duplicated: number;
  inconsistent: number;
  answeredTwice: number;
  answerWinners: number;
  answerConflicts: number;
  problems: string[];
}

const AGREE_WITHIN_MS = 60_000;

async function rowsFor(db: Db, sent: Sent): Promise<Array<{ id: string; status: string }>> {
  if (sent.kind === 'approval')
    return db('approvals').where({ action_description: sent.marker }).select('approval_id as id', 'status');
  return db('routings').where({ request_id: sent.marker }).select('routing_id as id', 'status');
}

async function workflowStatus(temporal: Client, sent: Sent, id: string): Promise<string | undefined> {
  try {
    const handle = temporal.workflow.getHandle(id);
    const state = sent.kind === 'approval' ? await handle.query(approvalQuery) : await handle.query(statusQuery);
    return state.status;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** The row and the workflow agree, allowing for the projection's lag. */
async function agree(db: Db, temporal: Client, sent: Sent, id: string): Promise<string | undefined> {
  const deadline = Date.now() + AGREE_WITHIN_MS;
  let last = '';
  while (Date.now() < deadline) {
    const [row] = await rowsFor(db, sent);
    const workflow = await workflowStatus(temporal, sent, id).catch(
      (error: unknown) => `error: ${(error as Error).message}`,
    );
    // Answered at commit: a workflow whose start a kill prevented is started by the dispatcher's sweep a few seconds on.
    if (row && row.status === workflow) return undefined;
    last =
      workflow === undefined
        ? `${sent.kind} ${id}: no workflow`
        : `${sent.kind} ${id}: PostgreSQL says ${row?.status ?? 'nothing'}, its workflow ${workflow}`;
    await sleep(500);
  }
  return last.endsWith(': no workflow')
    ? `${last}${await pendingStartOf(db, id)}; the sweep's dispatcher ${await dispatcherState(temporal)}`
    : last;
}

const PASS_STATES = ['unknown', 'scheduled', 'started', 'cancel requested', 'paused', 'pause requested'];

/**
 * What the outbox dispatcher (whose pass runs the sweep) is doing: its pass in progress or waiting to be retried,
 * which attempt, since when, and why the last one failed. A pass lost with a killed worker shows here.
 */
export async function dispatcherState(temporal: Client): Promise<string> {
  try {
    const description = await temporal.workflow.getHandle(outboxDispatcherId(TASK_QUEUE)).describe();
    const pass = description.raw.pendingActivities?.[0];
    if (!pass) return `is ${description.status.name}, between passes`;
    const at = (time: { seconds?: unknown } | null | undefined) =>
      time?.seconds ? new Date(Number(time.seconds) * 1000).toISOString() : '-';
    return (
      `is ${description.status.name}, its pass ${PASS_STATES[Number(pass.state)] ?? String(pass.state)} at attempt ${pass.attempt ?? 1}` +
      ` (last started ${at(pass.lastStartedTime)}, next at ${at(pass.scheduledTime)}, last failure: ${pass.lastFailure?.message ?? 'none'})`
    );
  } catch (error) {
    return `could not be described: ${(error as Error).message}`;
  }
}

/** For a workflow still missing: whether its start is still pending (the sweep has not made it), and since when. */
async function pendingStartOf(db: Db, id: string): Promise<string> {
  const pending: unknown = await db('workflow_starts').where({ workflow_id: id }).first('created_at');
  return pending
    ? `; its start pending since ${(pending as { created_at: Date }).created_at.toISOString()} (not swept)`
    : '; no pending start either';
}

async function inBatches<T>(items: T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let at = 0; at < items.length; at += size) await Promise.all(items.slice(at, at + size).map(each));
}

export async function checkAcknowledged(stack: { db: Db; temporal: Client }, tally: Tally): Promise<Counts> {
  const counts: Counts = {
    acknowledged: 0,
    lost: 0,
    duplicated: 0,
    inconsistent: 0,
    answeredTwice: 0,
    answerWinners: 0,
    answerConflicts: 0,
    problems: [],
  };
  await inBatches(tally.sent, 8, async (sent) => {
    const rows = await rowsFor(stack.db, sent);
    if (rows.length > 1) {
      counts.duplicated += 1;
      counts.problems.push(`${sent.marker}: ${rows.length} rows (${rows.map((row) => row.id).join(', ')})`);
    }
    if (!sent.id) return;
    counts.acknowledged += 1;
    if (!rows.some((row) => row.id === sent.id)) {
      counts.lost += 1;
      counts.problems.push(`${sent.marker}: acknowledged as ${sent.id}, not in PostgreSQL`);
      return;
    }
    const disagreement = await agree(stack.db, stack.temporal, sent, sent.id);
    if (disagreement) {
      counts.inconsistent += 1;
      counts.problems.push(disagreement);
    }
  });
  return counts;
}

async function respond(
  target: { baseUrl: string; approverToken: string },
  id: string,
  decision: 'approved' | 'rejected',
): Promise<number> {
  for (;;) {
    const response = await fetch(`${target.baseUrl}/v1/approvals/${id}/respond`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.approverToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision }),
    });
    await response.arrayBuffer();
    // Answers are not keyed; a 503 (a dependency still recovering) carries Retry-After and is asked again.
    if (response.status !== 503) return response.status;
    await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
  }
}

/** Every pending approval of the drill answered twice at once: exactly one 200 and one 409 each, and the row and workflow agree. */
export async function answerTwice(
  stack: { db: Db; temporal: Client },
  target: { baseUrl: string; approverToken: string },
  tally: Tally,
  counts: Counts,
): Promise<void> {
  const pending = tally.sent.filter((sent) => sent.kind === 'approval' && sent.id);
  await inBatches(pending, 4, async (sent) => {
    const id = sent.id!;
    const [row] = await rowsFor(stack.db, sent);
    if (row?.status !== 'pending') return;
    const statuses = await Promise.all([respond(target, id, 'approved'), respond(target, id, 'rejected')]);
    counts.answeredTwice += 1;
    counts.answerWinners += statuses.filter((status) => status === 200).length;
    counts.answerConflicts += statuses.filter((status) => status === 409).length;
    if (
      statuses.filter((status) => status === 200).length !== 1 ||
      statuses.filter((status) => status === 409).length !== 1
    ) {
      counts.problems.push(`approval ${id}: answered twice, got ${statuses.join(' and ')}`);
      return;
    }
    const disagreement = await agree(stack.db, stack.temporal, sent, id);
    if (disagreement) {
      counts.inconsistent += 1;
      counts.problems.push(disagreement);
    }
  });
}

export function countsLine(counts: Counts): string {
  return (
    `${counts.acknowledged} acknowledged, ${counts.lost} lost, ${counts.duplicated} duplicated, ${counts.inconsistent} out of step; ` +
    `${counts.answeredTwice} approvals answered twice: ${counts.answerWinners} × 200, ${counts.answerConflicts} × 409`
  );
}
