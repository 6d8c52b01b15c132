import { ApplicationFailure, log } from '@temporalio/activity';
import type { Knex } from 'knex';
import type { RecoveryRequestState } from '../contracts/aggregates/recovery-request';
import { FAILURE_TYPES } from '../contracts/failures';
import { appendProvenance } from '../db/ledger';
import { upsertRecoveryProjection } from '../db/recovery-requests';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import type { Mailer } from '../lib/mail/transport';
import type { SmsSender } from '../lib/sms/sender';
import { SecretsUnavailableError, type SecretKeys } from '../lib/secret-box';
import { recoveryCode, recoveryCodeHmac } from '../services/recovery/codes';
import { completeRecovery, RecoveryCredentialTaken } from '../services/recovery/completion';
import { notifyRecovery, sendCodeMail } from '../services/recovery/notifications';
import { withInvalidDataFailures } from './failures';

export interface RecoveryActivityDeps {
  db: Knex;
  mailer: Mailer;
  sms: SmsSender;
  recovery: { secretKeys: SecretKeys; publicBaseUrl: string };
}

export function createRecoveryActivities(deps: RecoveryActivityDeps) {
  const mail = { db: deps.db, mailer: deps.mailer, sms: deps.sms, publicBaseUrl: deps.recovery.publicBaseUrl };
  return withInvalidDataFailures({
    /** One transition: its provenance record and event, then the read model with the record's id (both idempotent). */
    async recordRecoveryStep(step: {
      provenance: AppendProvenanceInput;
      state: RecoveryRequestState;
    }): Promise<LedgerAnchor> {
      const anchor = await appendProvenance(deps.db, {
        ...step.provenance,
        organization_id: step.state.organization_id,
      });
      await upsertRecoveryProjection(deps.db, { ...step.state, provenance_id: anchor.transaction_id });
      return anchor;
    },

    /** The read model alone, for a request that failed. */
    async projectRecovery(state: RecoveryRequestState): Promise<void> {
      await upsertRecoveryProjection(deps.db, state);
    },

    /**
     * The owner's and the guardians' e-mail and texts at a moment of the request. A party no text can reach
     * (no provider, a number it refuses) is logged by guardian id and reason, never with the text.
     */
    async notifyRecovery(input: { state: RecoveryRequestState; moment: string }): Promise<void> {
      const untold = await notifyRecovery(mail, input.state, input.moment);
      for (const party of untold)
        log.warn('recovery text not sent', { request_id: input.state.request_id, to: party.to, reason: party.reason });
    },

    /** Sends the request's code to its recovery contact; returns only the code's HMAC. */
    async sendRecoveryCode(input: { state: RecoveryRequestState; expires_at: string }): Promise<{ code_hmac: string }> {
      try {
        const code = recoveryCode(deps.recovery.secretKeys, input.state.request_id);
        await sendCodeMail(mail, input.state, code, input.expires_at);
        return { code_hmac: recoveryCodeHmac(deps.recovery.secretKeys, input.state.request_id, code) };
      } catch (error) {
        if (!(error instanceof SecretsUnavailableError)) throw error;
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.secretsUnavailable,
          message: error.message,
          nonRetryable: true,
        });
      }
    },

    /** The new credential replaces the old ones, and the completed step is recorded, in one transaction. */
    async completeRecovery(input: { state: RecoveryRequestState; at: string }) {
      try {
        return await completeRecovery(deps.db, input.state, input.at);
      } catch (error) {
        if (!(error instanceof RecoveryCredentialTaken)) throw error;
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.invalidData,
          message: error.message,
          nonRetryable: true,
        });
      }
    },
  });
}
