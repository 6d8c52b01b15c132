import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { say, waitUntil } from '../stack';

/**
 * Waits until every start and signal a run committed has been made (by the after-answer queue or the sweep). Behind
 * 10,000 answers at c=32 the sweep delivers the signals the queue left for about 25 a second, Temporal's pace here.
 */
export async function noPendingStartsOrSignals(db: Knex): Promise<void> {
  await waitUntil(
    'The pending workflow starts and signals',
    async () => {
      const { rows } = await db.raw<{ rows: Array<{ n: string }> }>(
        'select (select count(*) from workflow_starts) + (select count(*) from workflow_signals) as n',
      );
      return Number(rows[0]?.n) === 0;
    },
    900_000,
  );
}

/** What the run sent, to hold the database's records against. */
export interface Sent {
  opened: number;
  answeredOk: number;
  expiring: number;
  routed: number;
}

/** Every approval, routing and ledger record of the run counted; `hold` says none is missing or doubled. */
export async function countRecords(db: Knex, sent: Sent) {
  const count = async (sql: string) =>
    Number((await db.raw<{ rows: Array<{ n: string | number }> }>(sql)).rows[0]?.n ?? 0);
  const counts = {
    approvalsOpened: sent.opened,
    approvalRows: await count("select count(*) as n from approvals where approval_id like 'apr_%'"),
    approved: await count("select count(*) as n from approvals where status = 'approved'"),
    answeredOk: sent.answeredOk,
    expired: await count("select count(*) as n from approvals where status = 'expired'"),
    pending: await count("select count(*) as n from approvals where status = 'pending'"),
    requestedRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'apr_%' and step_id = 'requested'",
    ),
    endingRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'apr_%' and step_id in ('responded', 'expired', 'cancelled')",
    ),
    approvalsEndedTwice: await count(
      "select count(*) as n from (select subject_id from ledger_entries where subject_id like 'apr_%' and step_id in ('responded', 'expired', 'cancelled') group by subject_id having count(*) > 1) twice",
    ),
    routed: sent.routed,
    routingRows: await count('select count(*) as n from routings'),
    routingDecisionRecords: await count(
      "select count(*) as n from ledger_entries where subject_id like 'rt_%' and step_id = 'routing_decision'",
    ),
    pendingStarts: await count('select count(*) as n from workflow_starts'),
    pendingSignals: await count('select count(*) as n from workflow_signals'),
  };
  const hold =
    counts.approvalRows === sent.opened &&
    counts.approved === sent.answeredOk &&
    counts.expired === sent.expiring &&
    counts.pending === 0 &&
    counts.requestedRecords === sent.opened &&
    counts.endingRecords === sent.opened &&
    counts.approvalsEndedTwice === 0 &&
    counts.routingRows === sent.routed &&
    counts.routingDecisionRecords === sent.routed &&
    counts.pendingStarts === 0 &&
    counts.pendingSignals === 0;
  return { counts, hold };
}

/** Waits for the expiring approvals to expire and every answered one's workflow to close; the seconds the latter took. */
export async function approvalsDrained(client: Client, db: Knex, expiring: number): Promise<number> {
  await waitUntil(
    'The expiring approvals',
    async () => Number((await db('approvals').where({ status: 'expired' }).count({ n: '*' }))[0]!.n) === expiring,
    300_000,
  );
  // An answer is the person's at its claim; its workflow carries it on after. How long the last of them took
  // to close after the last answer is the backlog the answers left.
  const drainStartedAt = Date.now();
  await waitUntil(
    'The answered approval workflows',
    async () =>
      (await client.workflow.count('WorkflowType = "approvalWorkflow" AND ExecutionStatus = "Running"')).count === 0,
    900_000,
  );
  const seconds = (Date.now() - drainStartedAt) / 1000;
  say(`  every answered approval's workflow closed ${seconds.toFixed(0)} s after the last answer`);
  return seconds;
}
