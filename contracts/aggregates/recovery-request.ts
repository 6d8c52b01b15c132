import { z } from 'zod';
import { RECOVERY_ENDINGS, RECOVERY_METHODS, RECOVERY_STATUSES } from '../../domain/recovery/statuses';
import type { WorkflowFailure } from '../failures';

/** A guardian as the request's snapshot holds them: their contact stays in the guardians table, out of the history. */
export const SnapshotGuardian = z
  .object({
    guardian_id: z.string(),
    guardian_passport_id: z.string(),
    guardian_did: z.string(),
    recovery_method: z.enum(RECOVERY_METHODS),
  })
  .meta({ id: 'RecoverySnapshotGuardian' });
export type SnapshotGuardian = z.infer<typeof SnapshotGuardian>;

/** A guardian's approval, as the signed-in guardian gave it. */
export const RecoveryApproval = z
  .object({
    guardian_id: z.string(),
    guardian_did: z.string(),
    credential: z.object({ type: z.string(), id: z.string() }).meta({
      description: 'The guardian’s passkey or device key that signed in the session the approval came with',
    }),
    timestamp: z.string().meta({ description: 'The instant the guardian’s client stated' }),
    approved_at: z.string(),
  })
  .meta({ id: 'RecoveryApproval' });
export type RecoveryApproval = z.infer<typeof RecoveryApproval>;

const credentialHash = (what: string) => z.string().meta({ description: `${what}: what guardians approve` });

/** A device key as the new credential, named by its RFC 7638 thumbprint (its kid once installed). */
export const RecoveryDeviceKey = z
  .object({
    type: z.literal('device_key'),
    device_id: z.string(),
    public_jwk: z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string() }),
    hash: credentialHash('The key’s RFC 7638 thumbprint (its kid once installed)'),
  })
  .meta({ id: 'RecoveryDeviceKey' });

/** A passkey registered for this recovery (its attestation verified when the request was made), installed at completion. */
export const RecoveryPasskey = z
  .object({
    type: z.literal('passkey'),
    credential_id: z.string().meta({ description: 'The WebAuthn credential id, base64url' }),
    public_key: z.string().meta({ description: 'The COSE public key, base64url' }),
    counter: z.number().int(),
    transports: z.array(z.string()),
    hash: credentialHash('base64url(SHA-256(credential_id + "." + public_key)), both as base64url text'),
  })
  .meta({ id: 'RecoveryPasskey' });

/** The credential that replaces the Passport's old ones. */
export const RecoveryCredential = z
  .discriminatedUnion('type', [RecoveryDeviceKey, RecoveryPasskey])
  .meta({ id: 'RecoveryCredential' });
export type RecoveryCredential = z.infer<typeof RecoveryCredential>;

/**
 * One guardian recovery of a person's Passport. The recoverPassportWorkflow holds it (its id is request_id),
 * the recovery_requests table projects it, the API shows it; all take their fields from here, in the order
 * the API shows them.
 */
export const RecoveryRequestState = z.object({
  request_id: z.string().meta({ example: 'rcv_7d2a…' }),
  organization_id: z.string(),
  version: z.number().int(),
  status: z.enum(RECOVERY_STATUSES),
  passport_id: z.string(),
  passport_did: z.string(),
  reason: z.string(),
  recovery_contact: z.string().meta({ description: 'The e-mail address the confirmation code is sent to' }),
  initiator_did: z.string().optional().meta({ description: 'The DID named by start WebAuthn recovery' }),
  requested_by: z.string().meta({ description: 'The principal that asked' }),
  new_credential: RecoveryCredential,
  approval_nonce: z.string().meta({ description: 'What every approval of this request carries back' }),
  guardians: z.array(SnapshotGuardian).meta({ description: 'The accepted guardians when the request was made' }),
  threshold: z.number().int().meta({ description: 'Approvals needed: a strict majority of the snapshot' }),
  approvals: z.array(RecoveryApproval),
  approvals_due_at: z.string(),
  time_lock_seconds: z.number().int(),
  unlocks_at: z.string().optional(),
  code_ttl_seconds: z.number().int(),
  code_expires_at: z.string().optional(),
  code_attempts: z.number().int(),
  max_code_attempts: z.number().int(),
  cancelled_by: z.string().optional(),
  ended_reason: z.enum(RECOVERY_ENDINGS).optional(),
  revoked_credentials: z
    .array(z.object({ type: z.string(), id: z.string() }))
    .optional()
    .meta({ description: 'With status completed: the passkeys and device keys the new credential replaced' }),
  provenance_id: z.string().optional().meta({ description: 'Ledger transaction of the latest transition' }),
  failure: (z.object({ type: z.string(), message: z.string() }) as unknown as z.ZodType<WorkflowFailure>)
    .optional()
    .meta({ description: 'With status failed: why the request could not be recorded' }),
  created_at: z.string(),
  completed_at: z.string().optional(),
  updated_at: z.string(),
});
export type RecoveryRequestState = z.infer<typeof RecoveryRequestState>;
