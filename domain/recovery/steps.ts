/**
 * The transitions of a recovery request and of a Passport's guardians: the provenance record each leaves
 * and the event it emits. No record or event carries a code or a contact.
 */
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';
import type { EventKind } from '../provenance/events';
import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';
import type { RecoveryEnding, RecoveryStatus } from './statuses';

/** What the records read of a request. */
export interface RecoveryRecordFacts {
  request_id: string;
  passport_id: string;
  passport_did: string;
  status: RecoveryStatus;
  reason: string;
  requested_by: string;
  new_credential: { hash: string };
  threshold: number;
  approvals: readonly unknown[];
  guardians: readonly unknown[];
  unlocks_at?: string | undefined;
  code_expires_at?: string | undefined;
  code_attempts: number;
  ended_reason?: RecoveryEnding | undefined;
  revoked_credentials?: readonly { type: string; id: string }[] | undefined;
}

export type RecoveryStep =
  | { kind: 'requested'; principal: { kind: string; id: string } }
  | { kind: 'approved'; guardian: HumanActor; guardian_id: string }
  | { kind: 'time_locked' }
  | { kind: 'code_sent' }
  | { kind: 'code_refused' }
  | { kind: 'completed' }
  | { kind: 'cancelled'; owner: HumanActor }
  | { kind: 'expired' };

const CORE: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

const EVENTS: Record<RecoveryStep['kind'], EventKind> = {
  requested: 'recovery.requested',
  approved: 'recovery.approved',
  time_locked: 'recovery.time_locked',
  code_sent: 'recovery.awaiting_confirmation',
  code_refused: 'recovery.confirmation_refused',
  completed: 'recovery.completed',
  cancelled: 'recovery.cancelled',
  expired: 'recovery.expired',
};

function stepIdOf(request: RecoveryRecordFacts, step: RecoveryStep): string {
  if (step.kind === 'approved') return `approved:${step.guardian_id}`;
  if (step.kind === 'code_refused') return `code_refused:${request.code_attempts}`;
  return step.kind;
}

function actorOf(step: RecoveryStep): ProvenanceActor {
  if (step.kind === 'approved') return humanProvenanceActor(step.guardian);
  if (step.kind === 'cancelled') return humanProvenanceActor(step.owner);
  if (step.kind === 'requested') return { ...CORE, principal: step.principal };
  return CORE;
}

function reasoningOf(request: RecoveryRecordFacts, step: RecoveryStep): string {
  const of = `recovery ${request.request_id} of ${request.passport_did}`;
  switch (step.kind) {
    case 'requested':
      return `${request.requested_by} asked for ${of} (${request.reason}); ${request.threshold} of ${request.guardians.length} guardians must approve`;
    case 'approved':
      return `Guardian ${step.guardian.did} approved ${of} (${request.approvals.length} of ${request.threshold})`;
    case 'time_locked':
      return `The guardians' threshold was met: ${of} is time-locked until ${request.unlocks_at ?? ''}, and the owner may cancel it`;
    case 'code_sent':
      return `The time lock of ${of} passed: a confirmation code was sent, valid until ${request.code_expires_at ?? ''}`;
    case 'code_refused':
      return `A wrong confirmation code for ${of} (attempt ${request.code_attempts})`;
    case 'completed':
      return `${of} completed: the device key ${request.new_credential.hash} replaced ${request.revoked_credentials?.length ?? 0} credentials`;
    case 'cancelled':
      return `The owner ${step.owner.did} cancelled ${of}`;
    case 'expired':
      return `${of} ended: ${request.ended_reason ?? 'unfinished'}`;
  }
}

/** The record and event of one transition of a request, as it stands after it. */
export function recoveryRecord(request: RecoveryRecordFacts, step: RecoveryStep, at: string): AppendProvenanceInput {
  const data = {
    request_id: request.request_id,
    passport_id: request.passport_id,
    did: request.passport_did,
    status: request.status,
    approvals: request.approvals.length,
    threshold: request.threshold,
    ...(request.unlocks_at ? { unlocks_at: request.unlocks_at } : {}),
    ...(request.ended_reason ? { ended_reason: request.ended_reason } : {}),
  };
  return {
    entry: {
      subject_id: request.request_id,
      step_id: stepIdOf(request, step),
      timestamp: at,
      actor: actorOf(step),
      action: `recovery_${step.kind}`,
      input_data: { passport_id: request.passport_id, new_credential: request.new_credential.hash },
      output_data: {
        ...data,
        ...(request.revoked_credentials ? { revoked_credentials: request.revoked_credentials } : {}),
      },
      reasoning: reasoningOf(request, step),
    },
    events: [{ event: EVENTS[step.kind], data }],
  };
}

export type GuardianStep = 'invited' | 'accepted' | 'removed';

const GUARDIAN_EVENTS: Record<GuardianStep, EventKind> = {
  invited: 'recovery.guardian_invited',
  accepted: 'recovery.guardian_accepted',
  removed: 'recovery.guardian_removed',
};

/** The record and event of a change to a Passport's guardians, done by a signed-in person (the owner, or the guardian accepting). */
export function guardianRecord(
  guardian: { guardian_id: string; passport_id: string; guardian_did: string; effective_at?: string | undefined },
  step: GuardianStep,
  by: HumanActor,
  at: Date,
): AppendProvenanceInput {
  const data = {
    guardian_id: guardian.guardian_id,
    passport_id: guardian.passport_id,
    guardian_did: guardian.guardian_did,
    ...(guardian.effective_at ? { effective_at: guardian.effective_at } : {}),
  };
  return {
    entry: {
      subject_id: guardian.passport_id,
      step_id: `guardian_${step}:${guardian.guardian_id}`,
      timestamp: at.toISOString(),
      actor: humanProvenanceActor(by),
      action: `recovery_guardian_${step}`,
      input_data: { guardian_did: guardian.guardian_did },
      output_data: data,
      reasoning: `${by.did}: guardian ${guardian.guardian_did} of ${guardian.passport_id} ${step}`,
    },
    events: [{ event: GUARDIAN_EVENTS[step], data }],
  };
}
