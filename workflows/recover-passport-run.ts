import { ApplicationFailure, condition } from '@temporalio/workflow';
import type { createRecoveryActivities } from '../activities/recovery';
import type {
  ApproveRecoveryInput,
  CancelRecoveryInput,
  ConfirmRecoveryInput,
  ConfirmRecoveryOutcome,
  RecoveryRequestState,
} from '../contracts/recover-passport';
import { recoverySearchAttributes } from '../contracts/recover-passport';
import { FAILURE_TYPES } from '../contracts/failures';
import { approvalRefusal, codeOutcome, thresholdMet } from '../domain/recovery/requests';
import type { RecoveryEnding } from '../domain/recovery/statuses';
import { recoveryRecord, type RecoveryStep } from '../domain/recovery/steps';
import { RecordedState } from './recorded-state';

export type RecoveryActivities = Pick<
  ReturnType<typeof createRecoveryActivities>,
  'recordRecoveryStep' | 'projectRecovery' | 'notifyRecovery' | 'sendRecoveryCode' | 'completeRecovery'
>;

type Act =
  | { kind: 'approve'; input: ApproveRecoveryInput }
  | { kind: 'cancel'; input: CancelRecoveryInput }
  | { kind: 'confirm'; input: ConfirmRecoveryInput };

type Reply = RecoveryRequestState | ConfirmRecoveryOutcome;

interface Queued {
  act: Act;
  reply?: { ok: true; value: Reply } | { ok: false; error: unknown };
}

const now = () => new Date().toISOString();
const after = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
/** Milliseconds until an instant, at least one: a timer of zero would not wait. */
const until = (instant: string) => Math.max(1, Date.parse(instant) - Date.now());

/**
 * A recovery request's state and its acts, taken one at a time in arrival order: handlers queue an act and
 * wait for its reply, the phase loops take them. Each transition is recorded (provenance, event, read model).
 */
export class RecoveryRun {
  readonly recorded: RecordedState<RecoveryRequestState>;
  private readonly queue: Queued[] = [];
  /** The HMAC of the code sent (the code itself never reaches the history). */
  private codeHmac: string | undefined;

  constructor(
    opened: RecoveryRequestState,
    private readonly activities: RecoveryActivities,
  ) {
    this.recorded = new RecordedState<RecoveryRequestState>(
      { ...opened },
      {
        failedChanges: (failure) => ({ status: 'failed', failure }),
        projectFailed: activities.projectRecovery,
        searchAttributes: recoverySearchAttributes,
        copy: (state) => ({ ...state, approvals: [...state.approvals] }),
      },
    );
    this.recorded.resume(opened);
  }

  get state(): RecoveryRequestState {
    return this.recorded.state;
  }

  /** The handlers' side: each queues its act and resolves with the loop's reply to it. */
  approveAct(input: ApproveRecoveryInput): Promise<RecoveryRequestState> {
    return this.enqueue({ kind: 'approve', input }) as Promise<RecoveryRequestState>;
  }

  cancelAct(input: CancelRecoveryInput): Promise<RecoveryRequestState> {
    return this.enqueue({ kind: 'cancel', input }) as Promise<RecoveryRequestState>;
  }

  /**
   * A code can reach its holder before the step that awaits it is recorded (the mail goes first): an attempt
   * in that moment (the time lock over, the code on its way) waits for the step instead of being refused.
   */
  async confirmAct(input: ConfirmRecoveryInput): Promise<ConfirmRecoveryOutcome> {
    if (this.state.status === 'time_locked') {
      await condition(() => this.state.status !== 'time_locked' || this.recorded.failure !== undefined);
      this.recorded.throwIfFailed();
      const refusal = this.confirmRefusal(Date.now());
      if (refusal)
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.recoveryNotAwaitingConfirmation,
          message: refusal,
          nonRetryable: true,
        });
    }
    return this.enqueue({ kind: 'confirm', input }) as Promise<ConfirmRecoveryOutcome>;
  }

  /** Queues an act; resolves with its reply once the loop has taken (and recorded) it. */
  private async enqueue(act: Act): Promise<Reply> {
    const queued: Queued = { act };
    this.queue.push(queued);
    await condition(() => queued.reply !== undefined || this.recorded.failure !== undefined);
    this.recorded.throwIfFailed();
    if (!queued.reply!.ok) throw queued.reply!.error;
    return queued.reply!.value;
  }

  queuedApprovals(): string[] {
    return this.queue.flatMap(({ act }) => {
      if (act.kind !== 'approve') return [];
      const guardian = this.state.guardians.find((g) => g.guardian_passport_id === act.input.guardian.passport_id);
      return guardian ? [guardian.guardian_id] : [];
    });
  }

  cancelRefusal(): string | undefined {
    const { status } = this.state;
    if (status === 'collecting_approvals' || status === 'time_locked') return undefined;
    return `Recovery ${this.state.request_id} is ${status}: only a request collecting approvals or time-locked can be cancelled`;
  }

  /** What the confirm Update's validator says: the time lock over counts as awaiting (the code is on its way). */
  confirmValidation(at: number): string | undefined {
    const { status, unlocks_at } = this.state;
    if (status === 'time_locked' && unlocks_at && Date.parse(unlocks_at) <= at) return undefined;
    return this.confirmRefusal(at);
  }

  confirmRefusal(at: number): string | undefined {
    const { status, code_expires_at } = this.state;
    if (status !== 'awaiting_confirmation')
      return `Recovery ${this.state.request_id} is ${status}: no confirmation code is awaited`;
    if (code_expires_at && Date.parse(code_expires_at) <= at) return 'The confirmation code has expired';
    return undefined;
  }

  async notify(moment: string): Promise<void> {
    await this.recorded.stored(this.activities.notifyRecovery({ state: { ...this.state }, moment }));
  }

  async collectApprovals(): Promise<void> {
    while (this.state.status === 'collecting_approvals') {
      if (!(await this.nextAct(this.state.approvals_due_at))) await this.end('approval_window_passed');
    }
    if (this.state.status === 'time_locked') await this.notify('time_locked');
  }

  async holdTimeLock(): Promise<void> {
    while (this.state.status === 'time_locked') {
      if (await this.nextAct(this.state.unlocks_at!)) continue;
      const expires = after(this.state.code_ttl_seconds);
      const sent = await this.recorded.stored(
        this.activities.sendRecoveryCode({ state: { ...this.state }, expires_at: expires }),
      );
      this.codeHmac = sent.code_hmac;
      await this.step({ kind: 'code_sent' }, { status: 'awaiting_confirmation', code_expires_at: expires });
    }
  }

  async awaitConfirmation(): Promise<void> {
    while (this.state.status === 'awaiting_confirmation') {
      if (!(await this.nextAct(this.state.code_expires_at!))) await this.end('code_expired');
    }
  }

  /** Takes the next act, or answers false when the deadline passes first. */
  private async nextAct(deadline: string): Promise<boolean> {
    if (!(await condition(() => this.queue.length > 0, until(deadline)))) return false;
    const queued = this.queue.shift()!;
    try {
      queued.reply = { ok: true, value: await this.take(queued.act) };
    } catch (error) {
      if (this.recorded.failure) throw error;
      queued.reply = { ok: false, error };
    }
    return true;
  }

  private async take(act: Act): Promise<Reply> {
    if (act.kind === 'approve') return this.approve(act.input);
    if (act.kind === 'cancel') return this.cancel(act.input);
    return this.confirm(act.input);
  }

  private async approve(input: ApproveRecoveryInput): Promise<RecoveryRequestState> {
    const claim = { ...input, guardian_passport_id: input.guardian.passport_id, guardian_did: input.guardian.did };
    const refusal = approvalRefusal(this.state, claim);
    if (refusal) throw ApplicationFailure.create({ type: refusal.code, message: refusal.detail, nonRetryable: true });
    const guardian = this.state.guardians.find((g) => g.guardian_passport_id === input.guardian.passport_id)!;
    const approval = {
      guardian_id: guardian.guardian_id,
      guardian_did: input.guardian.did,
      credential: input.guardian.credential,
      timestamp: input.timestamp,
      approved_at: now(),
    };
    const approvals = [...this.state.approvals, approval];
    await this.step({ kind: 'approved', guardian: input.guardian, guardian_id: guardian.guardian_id }, { approvals });
    if (thresholdMet(this.state))
      await this.step(
        { kind: 'time_locked' },
        { status: 'time_locked', unlocks_at: after(this.state.time_lock_seconds) },
      );
    return { ...this.state };
  }

  private async cancel(input: CancelRecoveryInput): Promise<RecoveryRequestState> {
    const refusal = this.cancelRefusal();
    if (refusal)
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.recoveryNotCancellable,
        message: refusal,
        nonRetryable: true,
      });
    await this.step(
      { kind: 'cancelled', owner: input.owner },
      { status: 'cancelled', cancelled_by: input.owner.did, ended_reason: 'cancelled_by_owner' },
    );
    return { ...this.state };
  }

  private async confirm(input: ConfirmRecoveryInput): Promise<ConfirmRecoveryOutcome> {
    const refusal = this.confirmRefusal(Date.now());
    if (refusal)
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.recoveryNotAwaitingConfirmation,
        message: refusal,
        nonRetryable: true,
      });
    const outcome = codeOutcome(this.state, input.code_hmac === this.codeHmac);
    const attempts = this.state.code_attempts + 1;
    if (outcome === 'wrong') {
      await this.step({ kind: 'code_refused' }, { code_attempts: attempts });
      return { ok: false, code: 'recovery_code_invalid', attempts_left: this.state.max_code_attempts - attempts };
    }
    if (outcome === 'exhausted') {
      await this.end('code_attempts_exhausted', { code_attempts: attempts });
      return { ok: false, code: 'recovery_code_attempts_exhausted', attempts_left: 0 };
    }
    await this.complete();
    return { ok: true, state: { ...this.state } };
  }

  /** The new credential replaces the old ones in one transaction, which also records the step. */
  private async complete(): Promise<void> {
    const at = now();
    this.recorded.change({ status: 'completed', completed_at: at }, at);
    await this.recorded.record(
      (state) => this.activities.completeRecovery({ state, at }),
      (done) => {
        this.state.provenance_id = done.provenance_id;
        this.state.revoked_credentials = done.revoked;
      },
    );
  }

  private async end(reason: RecoveryEnding, changes: Partial<RecoveryRequestState> = {}): Promise<void> {
    await this.step({ kind: 'expired' }, { ...changes, status: 'expired', ended_reason: reason });
  }

  /** A transition: its provenance record and event, and the read model with the record's id. */
  private async step(step: RecoveryStep, changes: Partial<RecoveryRequestState>): Promise<void> {
    const at = now();
    this.recorded.change(changes, at);
    await this.recorded.record(
      (state) => this.activities.recordRecoveryStep({ provenance: recoveryRecord(state, step, at), state }),
      (anchor) => {
        this.state.provenance_id = anchor.transaction_id;
      },
    );
  }
}
