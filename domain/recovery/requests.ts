/**
 * The rules of one recovery request: who may approve it and with what, when the threshold is met, and what a
 * confirmation code attempt means. The workflow asks; these decide.
 */
import { MAX_GUARDIANS, MIN_GUARDIANS } from './guardians';
import type { RecoveryStatus } from './statuses';

/** What the rules read of a request (contracts/aggregates/recovery-request.ts has this shape). */
export interface RecoveryFacts {
  request_id: string;
  status: RecoveryStatus;
  passport_id: string;
  approval_nonce: string;
  new_credential: { hash: string };
  guardians: readonly { guardian_id: string; guardian_passport_id: string; guardian_did: string }[];
  approvals: readonly { guardian_id: string }[];
  threshold: number;
  code_attempts: number;
  max_code_attempts: number;
}

/** A guardian's approval as it reaches the request: who signed in, and what they bound their approval to. */
export interface ApprovalClaim {
  guardian_passport_id: string;
  guardian_did: string;
  nonce: string;
  new_credential_hash: string;
}

export type ApprovalRefusalCode =
  | 'recovery_not_collecting'
  | 'recovery_not_guardian'
  | 'recovery_approval_replayed'
  | 'recovery_approval_other_request'
  | 'recovery_credential_mismatch';

export interface Refusal<C extends string> {
  code: C;
  detail: string;
}

/** Why this approval does not count for this request, if it does not. The owner is never in the snapshot. */
export function approvalRefusal(
  request: RecoveryFacts,
  claim: ApprovalClaim,
  queued: readonly string[] = [],
): Refusal<ApprovalRefusalCode> | undefined {
  if (request.status !== 'collecting_approvals')
    return { code: 'recovery_not_collecting', detail: `Recovery ${request.request_id} is ${request.status}` };
  const guardian = request.guardians.find((g) => g.guardian_passport_id === claim.guardian_passport_id);
  if (!guardian || claim.guardian_passport_id === request.passport_id)
    return {
      code: 'recovery_not_guardian',
      detail: `${claim.guardian_did} is not among the guardians of recovery ${request.request_id}`,
    };
  if (claim.nonce !== request.approval_nonce)
    return {
      code: 'recovery_approval_other_request',
      detail: `The approval carries another request's nonce, not that of ${request.request_id}`,
    };
  if (claim.new_credential_hash !== request.new_credential.hash)
    return {
      code: 'recovery_credential_mismatch',
      detail: `Recovery ${request.request_id} installs the credential ${request.new_credential.hash}, not the one approved`,
    };
  const given = [...request.approvals.map((a) => a.guardian_id), ...queued];
  if (given.includes(guardian.guardian_id))
    return { code: 'recovery_approval_replayed', detail: `${claim.guardian_did} approved this request already` };
  return undefined;
}

/** Whether a client's stated instant is too far from the service's: an approval kept and sent later is stale. */
export function staleApproval(
  stamped: { timestamp: string; at_ms: number },
  nowMs: number,
  maxSkewSeconds: number,
): Refusal<'recovery_approval_stale'> | undefined {
  const { timestamp } = stamped;
  const skew = Math.abs(stamped.at_ms - nowMs);
  if (skew <= maxSkewSeconds * 1000) return undefined;
  return {
    code: 'recovery_approval_stale',
    detail: `The approval is stamped ${timestamp}, more than ${maxSkewSeconds} s from now: approve again`,
  };
}

export function thresholdMet(request: Pick<RecoveryFacts, 'approvals' | 'threshold'>): boolean {
  return request.approvals.length >= request.threshold;
}

/** Why the guardians in effect cannot carry a request, if they cannot. */
export function snapshotRefusal(guardians: number): Refusal<'recovery_guardians_insufficient'> | undefined {
  if (guardians >= MIN_GUARDIANS && guardians <= MAX_GUARDIANS) return undefined;
  return {
    code: 'recovery_guardians_insufficient',
    detail: `Recovery needs at least ${MIN_GUARDIANS} accepted guardians in effect; the Passport has ${guardians}`,
  };
}

export type CodeOutcome = 'confirmed' | 'wrong' | 'exhausted';

/** What one attempt at the code means: the right code confirms; the last wrong one ends the request. */
export function codeOutcome(
  request: Pick<RecoveryFacts, 'code_attempts' | 'max_code_attempts'>,
  matches: boolean,
): CodeOutcome {
  if (matches) return 'confirmed';
  return request.code_attempts + 1 >= request.max_code_attempts ? 'exhausted' : 'wrong';
}
