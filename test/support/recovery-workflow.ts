import { randomUUID } from 'node:crypto';
import type { createRecoveryActivities } from '../../activities/recovery';
import type { ApproveRecoveryInput, RecoveryRequestState } from '../../contracts/recover-passport';
import type { HumanActor } from '../../domain/identity/human-acts';

type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;

export const HOUR_S = 60 * 60;
export const DAY_S = 24 * HOUR_S;

/** A person signed in with a device key, as the API hands them to the workflow. */
export function actor(name: string): HumanActor {
  return {
    passport_id: `pp_${name}_${randomUUID()}`,
    did: `did:web:acme.example:people:${name}`,
    credential: { type: 'device_key', id: `kid-${name}` },
  };
}

/** A request as the recovery service opens it: three guardians, threshold two, the real windows unless given. */
export function openedRequest(nowMs: number, extra: Partial<RecoveryRequestState> = {}) {
  const guardians = ['ann', 'ben', 'cat'].map((name) => ({
    ...actor(name),
    guardian_id: `rgd_${name}_${randomUUID()}`,
  }));
  const owner = actor('owner');
  const at = new Date(nowMs).toISOString();
  const state: RecoveryRequestState = {
    request_id: `rcv_${randomUUID()}`,
    organization_id: 'org_test',
    version: 1,
    status: 'collecting_approvals',
    passport_id: owner.passport_id,
    passport_did: owner.did,
    reason: 'lost my phone',
    recovery_contact: 'owner-backup@example.test',
    requested_by: 'sub:desk',
    new_credential: {
      type: 'device_key',
      device_id: 'new-phone',
      public_jwk: { kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43) },
      hash: 'h'.repeat(43),
    },
    approval_nonce: randomUUID(),
    guardians: guardians.map((g) => ({
      guardian_id: g.guardian_id,
      guardian_passport_id: g.passport_id,
      guardian_did: g.did,
      recovery_method: 'email' as const,
    })),
    threshold: 2,
    approvals: [],
    approvals_due_at: new Date(nowMs + 7 * DAY_S * 1000).toISOString(),
    time_lock_seconds: 48 * HOUR_S,
    code_ttl_seconds: 15 * 60,
    code_attempts: 0,
    max_code_attempts: 5,
    created_at: at,
    updated_at: at,
    ...extra,
  };
  return { state, owner, guardians };
}

export function approvalBy(guardian: HumanActor, state: RecoveryRequestState, timestamp: string): ApproveRecoveryInput {
  return { guardian, timestamp, nonce: state.approval_nonce, new_credential_hash: state.new_credential.hash };
}

/**
 * The recovery activities over memory: the ledger as the approval tests keep it, the read model as a list of
 * states, codes as the test chooses them (their HMAC a plain prefix: the workflow only compares).
 */
export function inMemoryRecoveryActivities() {
  const ledger = ledgerInMemory();
  const projections: RecoveryRequestState[] = [];
  const moments: string[] = [];
  const codes: { request_id: string; expires_at: string }[] = [];
  /** Set by a test, the code's send waits on it after the code is counted: the code is out, its step not yet recorded. */
  const sending: { held?: (() => Promise<void>) | undefined } = {};
  const activities: RecoveryActivities = {
    async recordRecoveryStep({ provenance, state }) {
      projections.push(state);
      return ledger.record(provenance.entry.subject_id, provenance.entry.step_id);
    },
    async projectRecovery(state) {
      projections.push(state);
    },
    async notifyRecovery({ moment }) {
      moments.push(moment);
    },
    async sendRecoveryCode({ state, expires_at }) {
      codes.push({ request_id: state.request_id, expires_at });
      await sending.held?.();
      return { code_hmac: `hmac:${state.request_id}` };
    },
    async completeRecovery({ state }) {
      const anchor = ledger.record(state.request_id, 'completed');
      projections.push(state);
      return { provenance_id: anchor.transaction_id, revoked: [{ type: 'device_key', id: 'kid-owner' }] };
    },
  };
  const steps = () => ledger.steps.map((s) => s.split('|')[1]!);
  const reset = () => {
    ledger.clear();
    projections.length = 0;
    moments.length = 0;
    codes.length = 0;
    sending.held = undefined;
  };
  return { activities, projections, moments, codes, sending, steps, reset };
}

/** The HMAC the in-memory sendRecoveryCode answers for a request: what a right code's attempt carries. */
export const rightCode = (requestId: string) => `hmac:${requestId}`;

/** One record per (subject, step), as the ledger keeps them: a retry gets the first anchor. */
function ledgerInMemory() {
  const steps: string[] = [];
  return {
    steps,
    record(subject: string, step: string) {
      const key = `${subject}|${step}`;
      const index = steps.indexOf(key);
      if (index < 0) steps.push(key);
      const at = index < 0 ? steps.length : index + 1;
      return { transaction_id: `tx-${at}`, block_number: at };
    },
    clear() {
      steps.length = 0;
    },
  };
}
