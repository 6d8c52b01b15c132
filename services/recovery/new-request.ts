import { randomBytes, randomUUID } from 'node:crypto';
import {
  RECOVER_PASSPORT_WORKFLOW,
  recoverySearchAttributes,
  type RecoverPassportWorkflow,
  type RecoveryRequestState,
} from '../../contracts/recover-passport';
import { recoveryThreshold } from '../../domain/recovery/guardians';
import type { Principal } from '../identity/scopes';
import type { PendingStart } from '../workflow-starts/starts';
import { MAX_CODE_ATTEMPTS, type RecoverySettings } from './settings';

/** A new request's state, as its workflow starts with it: the guardian snapshot, the new credential, the windows. */
export function newRequest(
  settings: RecoverySettings,
  principal: Principal,
  body: { passport: { passport_id: string } | { did: string }; recoveryContact: string; reason: string },
  facts: {
    passport: { passport_id: string; did: string; organization_id: string };
    guardians: {
      guardian_id: string;
      guardian_passport_id: string;
      guardian_did: string;
      recovery_method: 'email' | 'sms';
    }[];
    credential: RecoveryRequestState['new_credential'];
    now: Date;
  },
): RecoveryRequestState {
  const at = facts.now.toISOString();
  return {
    request_id: `rcv_${randomUUID()}`,
    organization_id: facts.passport.organization_id,
    version: 1,
    status: 'collecting_approvals',
    passport_id: facts.passport.passport_id,
    passport_did: facts.passport.did,
    reason: body.reason,
    recovery_contact: body.recoveryContact,
    ...('did' in body.passport ? { initiator_did: body.passport.did } : {}),
    requested_by: principal.id,
    new_credential: facts.credential,
    approval_nonce: randomBytes(16).toString('base64url'),
    guardians: facts.guardians.map(({ guardian_id, guardian_passport_id, guardian_did, recovery_method }) => ({
      guardian_id,
      guardian_passport_id,
      guardian_did,
      recovery_method,
    })),
    threshold: recoveryThreshold(facts.guardians.length),
    approvals: [],
    approvals_due_at: new Date(facts.now.getTime() + settings.approvalWindowSeconds * 1000).toISOString(),
    time_lock_seconds: settings.timeLockSeconds,
    code_ttl_seconds: settings.codeTtlSeconds,
    code_attempts: 0,
    max_code_attempts: MAX_CODE_ATTEMPTS,
    created_at: at,
    updated_at: at,
  };
}

export function recoveryStart(taskQueue: string, request: RecoveryRequestState): PendingStart {
  return {
    workflow_id: request.request_id,
    workflow_type: RECOVER_PASSPORT_WORKFLOW,
    task_queue: taskQueue,
    args: [request] satisfies Parameters<RecoverPassportWorkflow>,
    search_attributes: recoverySearchAttributes(request),
  };
}
