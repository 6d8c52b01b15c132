import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createApprovalActivities } from '../../activities/approvals';
import {
  approvalCreatedUpdate,
  approvalEndedSignal,
  approvalQuery,
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
let projections: ApprovalState[];

const activities: ReturnType<typeof createApprovalActivities> = {
  async projectApproval(state) {
    projections.push(state);
  },
  async recordApprovalStep({ provenance, state }) {
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
});

const HOUR = 60 * 60 * 1000;
const BEA = 'did:web:acme.example:people:bea';
const CAL = 'did:web:acme.example:people:cal';

async function request(extra: Partial<ApprovalRequest>): Promise<ApprovalRequest> {
  return {
    approval_id: `apr_${randomUUID()}`,
    requester_passport_id: 'did:web:acme.example:agents:payer',
    approver_passport_id: 'did:web:acme.example:people:ada',
    action_description: 'Pay invoice 42',
    risk_level: 'high',
    risk_factors: [],
    request_data: { amount: 25_000 },
    alternatives: [],
    expires_at: new Date((await env.currentTimeMs()) + HOUR).toISOString(),
    requested_by: 'sub:test',
    ...extra,
  };
}

const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, activities, run);

const timersOf = async (handle: { fetchHistory: () => Promise<{ events?: unknown[] | null }> }) =>
  ((await handle.fetchHistory()).events ?? []).filter(
    (event) => (event as { timerStartedEventAttributes?: unknown }).timerStartedEventAttributes,
  ).length;

describe('approvalWorkflow at its deadline', () => {
  it('escalates level by level on its own timer, and rejects (stated) when no level is left', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request({ on_expiry: 'escalate', escalate_to: [BEA, CAL] });
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      await env.sleep(HOUR + 60_000);
      expect(await handle.query(approvalQuery)).toMatchObject({
        status: 'pending',
        approver_passport_id: BEA,
        escalation_level: 1,
        expiry_outcome: 'escalated',
      });
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'expired', expiry_outcome: 'rejected', approver_passport_id: CAL });
      expect(await timersOf(handle)).toBe(3);
      expect(ledger.appended.map((a) => [a.entry.step_id, a.events?.map((e) => e.event)])).toEqual([
        ['requested', ['approval.requested']],
        ['escalated:1', ['approval.expired']],
        ['escalated:2', ['approval.expired']],
        ['expired', ['approval.expired']],
      ]);
      expect(ledger.appended[3]!.events![0]!.data).toMatchObject({ on_expiry: 'escalate', expiry_outcome: 'rejected' });
      expect(ledger.appended[3]!.entry.reasoning).toContain('no human rejected it');
    });
  });

  it('approves at its deadline when it asked to, saying no human did', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request({ on_expiry: 'approve' });
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'approved', expiry_outcome: 'approved' });
      expect(ledger.appended[1]!.events![0]).toMatchObject({
        event: 'approval.expired',
        data: { status: 'approved', on_expiry: 'approve', expiry_outcome: 'approved' },
      });
    });
  });

  it('holds the request open past its deadline, with no further timer, until an answer ends it', async () => {
    await withWorker(async (taskQueue) => {
      const args = await request({ on_expiry: 'hold' });
      const handle = await env.client.workflow.start(approvalWorkflow, {
        taskQueue,
        workflowId: args.approval_id,
        args: [args],
      });
      await handle.executeUpdate(approvalCreatedUpdate);
      await env.sleep(3 * HOUR);
      const held = await handle.query(approvalQuery);
      expect(held).toMatchObject({ status: 'pending', expiry_outcome: 'held' });
      await handle.signal(approvalEndedSignal, {
        ...held,
        status: 'approved',
        responded_by: BEA,
        version: held.version + 1,
      });
      expect(await handle.result()).toMatchObject({ status: 'approved', responded_by: BEA, expiry_outcome: 'held' });
      expect(await timersOf(handle)).toBe(1);
      expect(ledger.appended.map((a) => a.entry.step_id)).toEqual(['requested', 'held']);
    });
  });
});
