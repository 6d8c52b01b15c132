import { RecoveryGuardian } from '../../contracts/aggregates/recovery-guardian';
import { RecoveryRequestState } from '../../contracts/aggregates/recovery-request';
import { RECOVERY_METHODS } from '../../domain/recovery/statuses';
import { viewOf } from '../../lib/shape';
import { DidSchema, TimestampSchema } from './common';
import { DevicePublicJwkSchema, DidKeySchema } from './passport-devices';
import { PassportIdParamsSchema } from './passports';
import { CreationOptionsReplySchema, RegistrationResponseSchema } from './webauthn';
import { z } from './zod';

const guardian = viewOf(RecoveryGuardian, { rename: { guardian_id: 'id' }, hide: ['organization_id'] });
export const RecoveryGuardianSchema = guardian.schema.openapi('RecoveryGuardian');
export const recoveryGuardianView = guardian.of;

export const RecoveryGuardianListSchema = z
  .object({ data: z.array(RecoveryGuardianSchema) })
  .openapi('RecoveryGuardianList', { description: 'Every guardian of the Passport: at most five hold a place' });

const request = viewOf(RecoveryRequestState, {
  rename: { request_id: 'id' },
  hide: ['organization_id', 'version', 'requested_by'],
});
export const RecoveryRequestSchema = request.schema.openapi('RecoveryRequest');
export const recoveryRequestView = request.of;

export const GuardianParamsSchema = PassportIdParamsSchema.extend({
  guardian_id: z.string().regex(/^rgd_[A-Za-z0-9-]{1,100}$/, 'must be a guardian id (rgd_…)'),
});

export const RecoveryRequestParamsSchema = PassportIdParamsSchema.extend({
  request_id: z.string().regex(/^rcv_[A-Za-z0-9-]{1,100}$/, 'must be a recovery request id (rcv_…)'),
});

const EmailSchema = z.email().max(320);
const PhoneSchema = z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 phone number (+15551234567)');

export const EnrollGuardianSchema = z
  .object({
    guardianId: DidSchema.openapi({ description: 'The DID of a person of the organization, never the owner' }),
    recoveryMethod: z.enum(RECOVERY_METHODS).openapi({
      description:
        'email: invited and told by e-mail. sms: invited and told by text message (the deployment’s SMS provider)',
    }),
    contact: z.union([EmailSchema, PhoneSchema]).openapi({
      description:
        'Where the guardian is told: an e-mail address for email, an E.164 number for sms (not in the spec’s body)',
    }),
  })
  .strict()
  .refine((body) => (body.recoveryMethod === 'email') === EmailSchema.safeParse(body.contact).success, {
    path: ['contact'],
    message: 'must be an e-mail address for recoveryMethod email, an E.164 number for sms',
  })
  .openapi('EnrollRecoveryGuardian');

const NewDeviceKeySchema = z
  .object({
    type: z.literal('device_key').optional().openapi({ description: 'device_key when absent' }),
    deviceId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII'),
    publicKey: z.union([DidKeySchema, DevicePublicJwkSchema]),
  })
  .strict()
  .openapi('RecoveryNewDeviceKey', {
    description: 'A device key: its RFC 7638 thumbprint is what guardians approve, and its kid once installed',
  });

const NewPasskeySchema = z
  .object({
    type: z.literal('passkey'),
    registration: RegistrationResponseSchema.openapi({
      description:
        'What navigator.credentials.create() gave for the options of POST /v1/passports/{passport_id}/recovery/passkey-options (PublicKeyCredential.toJSON()): its challenge answers once, for this Passport, before it expires',
    }),
  })
  .strict()
  .openapi('RecoveryNewPasskey', {
    description:
      'A passkey registered for this recovery: its attestation is verified when the request is made; guardians approve base64url(SHA-256(credential_id + "." + public_key)), the request’s new_credential.hash',
  });

const NewCredentialSchema = z.union([NewDeviceKeySchema, NewPasskeySchema]).openapi('RecoveryNewCredential', {
  description: 'The credential that replaces the Passport’s passkeys and device keys once the recovery completes',
});

export const RecoveryPasskeyOptionsSchema = CreationOptionsReplySchema.extend({
  registration_url: z.string().openapi({
    description:
      'A page of this deployment that registers the passkey in the person’s browser and shows the registration to hand back; the options ride in its fragment',
  }),
}).openapi('RecoveryPasskeyOptions');

const RecoveryFields = {
  recoveryContact: EmailSchema.openapi({
    description: 'Where the confirmation code is sent, once the time lock has passed',
  }),
  reason: z.string().min(1).max(1000).regex(/\S/, 'must not be blank'),
  newCredential: NewCredentialSchema,
};

export const CreateRecoverySchema = z.object(RecoveryFields).strict().openapi('CreateRecoveryRequest');

export const StartWebAuthnRecoverySchema = z
  .object({ initiator: DidSchema.openapi({ description: 'The DID of the Passport to recover' }), ...RecoveryFields })
  .strict()
  .openapi('StartWebAuthnRecovery');

export const ApproveRecoverySchema = z
  .object({
    approvedBy: DidSchema.openapi({
      description: 'The signed-in guardian’s own DID: it may only repeat who signed in',
    }),
    timestamp: TimestampSchema.openapi({
      description: 'Now, by the guardian’s clock: an approval older than 5 minutes is stale',
    }),
    nonce: z.string().min(1).max(100).openapi({ description: 'The request’s approval_nonce' }),
    newCredentialHash: z.string().min(1).max(100).openapi({ description: 'The request’s new_credential.hash' }),
  })
  .strict()
  .openapi('ApproveRecoveryRequest');

export const ExecuteRecoverySchema = z
  .object({ confirmationCode: z.string().regex(/^[0-9]{8}$/, 'must be the 8-digit code sent to the recovery contact') })
  .strict()
  .openapi('ExecuteRecovery');
