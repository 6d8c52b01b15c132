import {
  allHandlersFinished,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createRecoveryActivities } from '../activities/recovery';
import {
  approveRecoveryUpdate,
  cancelRecoveryUpdate,
  confirmRecoveryUpdate,
  recoveryQuery,
  type ApproveRecoveryInput,
  type RecoveryRequestState,
} from '../contracts/recover-passport';
import { DATABASE_ACTIVITY_RETRY, FAILURE_TYPES, NON_RETRYABLE_FAILURE_TYPES, refuseWith } from '../contracts/failures';
import { approvalRefusal } from '../domain/recovery/requests';
import { RecoveryRun, type RecoveryActivities } from './recover-passport-run';

const database = proxyLocalActivities<ReturnType<typeof createRecoveryActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: DATABASE_ACTIVITY_RETRY,
});
// Mail and the credential change: retried for about two hours before the request fails with them.
const remote = proxyActivities<ReturnType<typeof createRecoveryActivities>>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 30,
    nonRetryableErrorTypes: NON_RETRYABLE_FAILURE_TYPES,
  },
});
const activities: RecoveryActivities = {
  recordRecoveryStep: database.recordRecoveryStep,
  projectRecovery: database.projectRecovery,
  notifyRecovery: remote.notifyRecovery,
  sendRecoveryCode: remote.sendRecoveryCode,
  completeRecovery: remote.completeRecovery,
};

/**
 * One guardian recovery of a Passport, opened by the recovery service (services/recovery/requests.ts). Guardians
 * approve (Updates, refused by domain/recovery/requests.ts); at a strict majority a time lock runs, during which
 * the owner may cancel; then a confirmation code goes to the recovery contact, and the right code replaces the
 * Passport's credentials. Every deadline is a durable timer from the request's own fields, so a worker that
 * stops during the time lock changes nothing: the next one carries on. Acts are taken one at a time by the loop.
 */
export async function recoverPassportWorkflow(opened: RecoveryRequestState): Promise<RecoveryRequestState> {
  const run = new RecoveryRun(opened, activities);
  const { state } = run;

  setHandler(recoveryQuery, () => state);
  setHandler(approveRecoveryUpdate, (input) => run.approveAct(input), {
    validator: (input: ApproveRecoveryInput) => {
      const refusal = approvalRefusal(state, { ...input, ...guardianOf(input) }, run.queuedApprovals());
      refuseWith(refusal?.code ?? FAILURE_TYPES.recoveryNotGuardian, refusal?.detail);
    },
  });
  setHandler(cancelRecoveryUpdate, (input) => run.cancelAct(input), {
    validator: (_input) => refuseWith(FAILURE_TYPES.recoveryNotCancellable, run.cancelRefusal()),
  });
  setHandler(confirmRecoveryUpdate, (input) => run.confirmAct(input), {
    validator: (_input) => refuseWith(FAILURE_TYPES.recoveryNotAwaitingConfirmation, run.confirmValidation(Date.now())),
  });

  await run.notify('requested');
  await run.collectApprovals();
  await run.holdTimeLock();
  await run.awaitConfirmation();
  await run.notify(state.status);
  await condition(allHandlersFinished);
  return state;
}

function guardianOf(input: { guardian: { passport_id: string; did: string } }) {
  return { guardian_passport_id: input.guardian.passport_id, guardian_did: input.guardian.did };
}
