import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import {
  approveRecoveryUpdate,
  cancelRecoveryUpdate,
  confirmRecoveryUpdate,
  recoveryQuery,
  type RecoveryRequestState,
} from '../../contracts/recover-passport';
import { recoverPassportWorkflow } from '../../workflows/recover-passport';
import {
  DAY_S,
  HOUR_S,
  approvalBy,
  inMemoryRecoveryActivities,
  openedRequest,
  rightCode,
} from '../support/recovery-workflow';
import { eventually } from '../support/eventually';
import { startTimeSkipping, withWorker as withTestWorker } from '../support/time-skipping';

// The real windows (7 days to approve, a 48-hour time lock, a 15-minute code) on the time-skipping server:
// each deadline is a durable timer the server skips to, so these tests wait for none of them.
let env: TestWorkflowEnvironment;
const memory = inMemoryRecoveryActivities();

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => memory.reset());

const started = new Set<string>();
const withWorker = <T>(run: (taskQueue: string) => Promise<T>) => withTestWorker(env, memory.activities, run, started);

async function start(taskQueue: string, extra: Partial<RecoveryRequestState> = {}) {
  const opened = openedRequest(await env.currentTimeMs(), extra);
  const handle = await env.client.workflow.start(recoverPassportWorkflow, {
    taskQueue,
    workflowId: opened.state.request_id,
    args: [opened.state],
  });
  started.add(handle.workflowId);
  return { ...opened, handle };
}

type Started = Awaited<ReturnType<typeof start>>;

/** Two of the three guardians approve, stamped with the server's time: the time lock starts. */
async function reachThreshold({ handle, state, guardians }: Started) {
  let latest = state;
  for (const guardian of guardians.slice(0, 2)) {
    const stamped = new Date(await env.currentTimeMs()).toISOString();
    latest = await handle.executeUpdate(approveRecoveryUpdate, { args: [approvalBy(guardian, state, stamped)] });
  }
  return latest;
}

/** The failure type an update was refused with, or `closed` when the request had already ended. */
const refusalOf = async (update: Promise<unknown>) => {
  const error = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof WorkflowNotFoundError) return 'closed';
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as { type?: string }).type;
};

/**
 * The state once the time lock's end has been acted on. Skipping the clock past it fires the timer, but the code is
 * sent by an activity, in real time: a query at once can still see time_locked. (Queries do not let time skip.)
 */
const afterTheTimeLock = (run: Awaited<ReturnType<typeof start>>) =>
  eventually(
    () => run.handle.query(recoveryQuery),
    (state) => state.status !== 'time_locked',
    { timeoutMs: 10_000, everyMs: 20 },
  );

describe('recoverPassportWorkflow on the time-skipping server', () => {
  it('holds the 48-hour time lock, then sends the code and completes with it', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      const locked = await reachThreshold(run);
      expect(locked.status).toBe('time_locked');
      expect(Date.parse(locked.unlocks_at!) - Date.parse(locked.updated_at)).toBe(48 * HOUR_S * 1000);
      // Not yet: no code is awaited during the time lock.
      expect(await refusalOf(run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run)] }))).toBe(
        'recovery_not_awaiting_confirmation',
      );
      expect(memory.codes).toEqual([]);

      await env.sleep(48 * HOUR_S * 1000);
      const awaiting = await afterTheTimeLock(run);
      expect(awaiting.status).toBe('awaiting_confirmation');
      expect(memory.codes).toHaveLength(1);
      expect(Date.parse(awaiting.code_expires_at!) - Date.parse(awaiting.unlocks_at!)).toBeGreaterThanOrEqual(
        15 * 60 * 1000,
      );

      const done = await run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run, true)] });
      expect(done).toMatchObject({ ok: true, state: { status: 'completed' } });
      expect((await run.handle.result()).status).toBe('completed');
      expect(memory.steps()).toEqual([
        `approved:${run.guardians[0]!.guardian_id}`,
        `approved:${run.guardians[1]!.guardian_id}`,
        'time_locked',
        'code_sent',
        'completed',
      ]);
      expect(memory.moments).toEqual(['requested', 'time_locked', 'completed']);
    });
  });

  it('takes the code from a holder who is quicker than the step that awaits it', async () => {
    // Its code-sending activity is held across a skip of the clock, which leaves the test server's time skipping
    // locked for whatever runs on it next: it gets a server of its own.
    const shared = env;
    env = await startTimeSkipping();
    try {
      await quickerHolder();
    } finally {
      await env.teardown();
      env = shared;
    }
  });

  it('expires the request when the seven-day approval window passes short of the threshold', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      const stamped = new Date(await env.currentTimeMs()).toISOString();
      await run.handle.executeUpdate(approveRecoveryUpdate, {
        args: [approvalBy(run.guardians[0]!, run.state, stamped)],
      });
      await env.sleep(7 * DAY_S * 1000 - 60_000);
      expect((await run.handle.query(recoveryQuery)).status).toBe('collecting_approvals');
      await env.sleep(60_000);
      const ended = await run.handle.result();
      expect(ended).toMatchObject({ status: 'expired', ended_reason: 'approval_window_passed' });
      expect(memory.codes).toEqual([]);
    });
  });

  it('lets the confirmation code lapse after 15 minutes, and takes no code after', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      await reachThreshold(run);
      await env.sleep(48 * HOUR_S * 1000);
      expect((await afterTheTimeLock(run)).status).toBe('awaiting_confirmation');
      await env.sleep(15 * 60 * 1000 - 1000);
      expect((await run.handle.query(recoveryQuery)).status).toBe('awaiting_confirmation');
      await env.sleep(2000);
      const ended = await run.handle.result();
      expect(ended).toMatchObject({ status: 'expired', ended_reason: 'code_expired' });
      expect(memory.steps().slice(-2)).toEqual(['code_sent', 'expired']);
      expect(await refusalOf(run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run, true)] }))).toBe(
        'closed',
      );
    });
  });

  it('is cancelled by the owner during the time lock: no code is ever sent', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      await reachThreshold(run);
      await env.sleep(47 * HOUR_S * 1000);
      const cancelled = await run.handle.executeUpdate(cancelRecoveryUpdate, { args: [{ owner: run.owner }] });
      expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_by: run.owner.did });
      expect((await run.handle.result()).status).toBe('cancelled');
      await env.sleep(2 * HOUR_S * 1000);
      expect(memory.codes).toEqual([]);
      expect(memory.steps()).toContain('cancelled');
    });
  });

  it('takes a configured short time lock from the request', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue, { time_lock_seconds: 30 });
      const locked = await reachThreshold(run);
      expect(Date.parse(locked.unlocks_at!) - Date.parse(locked.updated_at)).toBe(30_000);
      await env.sleep(31_000);
      expect((await afterTheTimeLock(run)).status).toBe('awaiting_confirmation');
    });
  });

  it('ends at the fifth wrong code and refuses a sixth attempt, the right code included', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      await reachThreshold(run);
      await env.sleep(48 * HOUR_S * 1000);
      await afterTheTimeLock(run);
      for (let left = 4; left >= 1; left -= 1)
        expect(await run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run)] })).toEqual({
          ok: false,
          code: 'recovery_code_invalid',
          attempts_left: left,
        });
      expect(await run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run)] })).toEqual({
        ok: false,
        code: 'recovery_code_attempts_exhausted',
        attempts_left: 0,
      });
      // The request may still be finishing (refused) or already over (closed): never confirmed.
      expect(['recovery_not_awaiting_confirmation', 'closed']).toContain(
        await refusalOf(run.handle.executeUpdate(confirmRecoveryUpdate, { args: [attempt(run, true)] })),
      );
      expect(await run.handle.result()).toMatchObject({ status: 'expired', ended_reason: 'code_attempts_exhausted' });
    });
  });

  it('refuses a replayed approval, the owner, and an approval carrying another request’s nonce', async () => {
    await withWorker(async (taskQueue) => {
      const run = await start(taskQueue);
      const other = openedRequest(await env.currentTimeMs());
      const stamped = new Date(await env.currentTimeMs()).toISOString();
      const [ann, ben] = run.guardians;
      await run.handle.executeUpdate(approveRecoveryUpdate, { args: [approvalBy(ann!, run.state, stamped)] });
      const refused = (input: Parameters<typeof approvalBy>) =>
        refusalOf(run.handle.executeUpdate(approveRecoveryUpdate, { args: [approvalBy(...input)] }));
      expect(await refused([ann!, run.state, stamped])).toBe('recovery_approval_replayed');
      expect(await refused([run.owner, run.state, stamped])).toBe('recovery_not_guardian');
      expect(await refused([other.guardians[0]!, run.state, stamped])).toBe('recovery_not_guardian');
      expect(await refused([ben!, other.state, stamped])).toBe('recovery_approval_other_request');
      expect((await run.handle.query(recoveryQuery)).approvals).toHaveLength(1);
    });
  });
});

function attempt(run: Started, right = false) {
  return { code_hmac: right ? rightCode(run.state.request_id) : 'hmac:wrong', principal: 'sub:desk' };
}

/** A code taken from its holder while the workflow has not yet recorded that it awaits it (the mail goes first). */
async function quickerHolder() {
  await withWorker(async (taskQueue) => {
    const run = await start(taskQueue);
    await reachThreshold(run);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    memory.sending.held = () => released;
    await env.sleep(48 * HOUR_S * 1000);
    // The code is out (the mail was sent) while the workflow has not yet recorded that it awaits it.
    while (memory.codes.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await run.handle.query(recoveryQuery)).status).toBe('time_locked');
    const attempt_ = await run.handle.startUpdate(confirmRecoveryUpdate, {
      args: [attempt(run, true)],
      waitForStage: WorkflowUpdateStage.ACCEPTED,
    });
    release();
    expect(await attempt_.result()).toMatchObject({ ok: true, state: { status: 'completed' } });
    expect(memory.steps().slice(-2)).toEqual(['code_sent', 'completed']);
  });
}
