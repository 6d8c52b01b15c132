import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApprovalActivities } from '../../activities/approvals';
import {
  approvalCreatedUpdate,
  approvalQuery,
  cancelApprovalUpdate,
  respondUpdate,
  type ApprovalRequest,
  type ApprovalState,
} from '../../contracts/approval';
import { approvalWorkflow } from '../../workflows/approval';
import {
  inMemoryApprovalEnding,
  inMemoryLedger,
  startTimeSkipping,
  withWorker as withTestWorker,
} from '../support/time-skipping';

let env: TestWorkflowEnvironment;
const ledger = inMemoryLedger();
const appended = ledger.appended;
let projections: ApprovalState[];
/** When set, recording the answer waits for it: the answer is then in flight while the test sends another. */
let answerGate: { reached: () => void; release: Promise<void> } | undefined;

const activities: ReturnType<typeof createApprovalActivities> = {
  async projectApproval(state) {
    projections.push(state);
  },
  async recordApprovalStep({ provenance, state }) {
    if (answerGate && provenance.entry.step_id !== 'requested') {
      answerGate.reached();
      await answerGate.release;
    }
    projections.push(state);
    return ledger.record(provenance);
  },
  claimApprovalEnding: inMemoryApprovalEnding(
    (id) => [...projections].reverse().find((state) => state.approval_id === id),
    (provenance) => ledger.record(provenance),
    (state) => projections.push(state),
  ),
};

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  ledger.clear();
  projections = [];
  answerGate = undefined;
});

async function request(expiresInMs: number, extra: Partial<ApprovalRequest> = {}): Promise<ApprovalRequest> {
  const now = await env.currentTimeMs();
  return {
    approval_id: `apr_${randomUUID()}`,
    requester_passport_id: 'did:web:acme.example:agents:payer',
    approver_passport_id: 'did:web:acme.example:people:cfo',
    action_description: 'Pay invoice 42',
    risk_level: 'high',
    risk_factors: [{ factor: 'amount_at_least:10000', severity: 'high' }],
    request_data: { amount: 25_000, currency: 'EUR' },
    alternatives: [],
    expires_at: new Date(now + expiresInMs).toISOString(),
    requested_by: 'sub:test',
    ...extra,
  };
}

const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, activities, run);

const HOUR = 60 * 60 * 1000;

describe('approvalWorkflow', () => {
  it('expires at expires_at on a durable timer, and refuses a response after that', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request(2 * HOUR);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      const created = await handle.executeUpdate(approvalCreatedUpdate);
      expect(created).toMatchObject({ status: 'pending', version: 1, provenance_id: 'tx-1' });

      await env.sleep(2 * HOUR - 60_000);
      expect((await handle.query(approvalQuery)).status).toBe('pending');
      const final = await handle.result();
      expect(final.status).toBe('expired');
      await expect(
        handle.executeUpdate(respondUpdate, {
          args: [
            { decision: 'approved', response_kind: 'approved', responded_by: 'did:web:x:late', principal: 'sub:late' },
          ],
        }),
      ).rejects.toBeInstanceOf(WorkflowNotFoundError);

      const history = await handle.fetchHistory();
      const timers = history
        .events!.filter((event) => event.timerStartedEventAttributes)
        .map((event) => Number(event.timerStartedEventAttributes!.startToFireTimeout!.seconds));
      expect(timers).toHaveLength(1);
      expect(Math.abs(timers[0]! - 2 * 3600)).toBeLessThanOrEqual(1);
      expect(appended.map((a) => [a.entry.step_id, a.events?.map((e) => e.event)])).toEqual([
        ['requested', ['approval.requested']],
        ['expired', ['approval.expired']],
      ]);
      expect(projections.map((p) => [p.version, p.status])).toEqual([
        [1, 'pending'],
        [2, 'expired'],
      ]);
    });
  });

  it('takes one response, with its modified parameters, and refuses a second', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request(HOUR);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      const answered = await handle.executeUpdate(respondUpdate, {
        args: [
          {
            decision: 'approved',
            response_kind: 'approved',
            responded_by: 'did:web:acme.example:people:cfo',
            comment: 'pay half',
            modified_params: { amount: 12_500 },
            principal: 'sub:cfo',
          },
        ],
      });
      expect(answered).toMatchObject({
        status: 'approved',
        responded_by: 'did:web:acme.example:people:cfo',
        response_comment: 'pay half',
        modified_params: { amount: 12_500 },
        version: 2,
        provenance_id: 'tx-2',
      });
      expect((await handle.result()).status).toBe('approved');
      // The workflow closes with its decision; a later answer finds no workflow to take it (the API answers 409 from the record).
      await expect(
        handle.executeUpdate(respondUpdate, {
          args: [
            { decision: 'rejected', response_kind: 'reject', responded_by: 'did:web:x:y', principal: 'sub:other' },
          ],
        }),
      ).rejects.toBeInstanceOf(WorkflowNotFoundError);
      expect(appended.map((a) => a.entry.step_id)).toEqual(['requested', 'responded']);
      expect(appended[1]!.entry).toMatchObject({
        actor: { type: 'human', did: 'did:web:acme.example:people:cfo' },
        action: 'approval_approved',
        reasoning: 'pay half',
      });
    });
  });

  it('refuses an answer that arrives while the first one is being recorded: never a second decision', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request(HOUR);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
        // The first answer's recording (a local activity, held below) keeps its workflow task open, and the later
        // answers reach the workflow only at that task's heartbeat, at 80% of its timeout: 2.4 s, not 8.
        workflowTaskTimeout: '3s',
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      let reached!: () => void;
      let release!: () => void;
      const inFlight = new Promise<void>((resolve) => (reached = resolve));
      answerGate = { reached, release: new Promise<void>((resolve) => (release = resolve)) };

      const first = handle.executeUpdate(respondUpdate, {
        args: [
          { decision: 'approved', response_kind: 'approved', responded_by: 'did:web:x:first', principal: 'sub:first' },
        ],
      });
      await inFlight;
      const rejection = handle.executeUpdate(respondUpdate, {
        args: [
          {
            decision: 'rejected',
            response_kind: 'rejected',
            responded_by: 'did:web:x:second',
            principal: 'sub:second',
          },
        ],
      });
      const cancel = handle.executeUpdate(cancelApprovalUpdate, {
        args: [{ cancelled_by: 'did:web:x:third', principal: 'sub:third' }],
      });
      await expect(rejection).rejects.toMatchObject({
        cause: { type: 'approval_not_pending', message: expect.stringContaining('already being answered') },
      });
      await expect(cancel).rejects.toMatchObject({ cause: { type: 'approval_not_pending' } });
      release();
      expect(await first).toMatchObject({ status: 'approved', responded_by: 'did:web:x:first' });
      expect((await handle.result()).responded_by).toBe('did:web:x:first');
      expect(appended.map((a) => a.entry.step_id)).toEqual(['requested', 'responded']);
    });
  });

  it('cancels on the cancel update, and then refuses a response', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request(HOUR);
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      const cancelled = await handle.executeUpdate(cancelApprovalUpdate, {
        args: [
          { cancelled_by: 'did:web:acme.example:agents:payer', reason: 'invoice withdrawn', principal: 'sub:payer' },
        ],
      });
      expect(cancelled).toMatchObject({
        status: 'cancelled',
        cancelled_by: 'did:web:acme.example:agents:payer',
        cancel_reason: 'invoice withdrawn',
      });
      expect((await handle.result()).status).toBe('cancelled');
      await expect(
        handle.executeUpdate(respondUpdate, {
          args: [{ decision: 'approved', response_kind: 'approve', responded_by: 'did:web:x:y', principal: 'sub:x' }],
        }),
      ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    });
  });

  it('records a cancellation of the workflow itself (an SRE in the Temporal UI, or the execution that asked) as cancelled', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request(HOUR, { execution_id: 'exe_parent' });
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      expect(projections.at(-1)).toMatchObject({ status: 'cancelled', cancel_reason: 'exe_parent was cancelled' });
      expect(appended.at(-1)!.events).toEqual([expect.objectContaining({ event: 'approval.cancelled' })]);
    });
  });
});
