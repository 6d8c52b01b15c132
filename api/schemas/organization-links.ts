import { VERIFICATION_CODE_PATTERN } from '../../domain/people/verification';
import { z } from './zod';

export const StartOrganizationLinkSchema = z
  .object({
    linkingCode: z.string().min(4).max(64).openapi({
      description: 'The linking code of the employee invitation (sent in the onboarding e-mail)',
      example: 'K7QM-2XHD-9PWA',
    }),
    email: z.email().max(320).openapi({ description: 'The address the invitation was sent to: the code goes there' }),
  })
  .strict()
  .openapi('StartOrganizationLinkRequest');

export const VerifyOrganizationLinkSchema = z
  .object({
    verificationCode: z
      .string()
      .regex(VERIFICATION_CODE_PATTERN, 'must be the 6-digit code sent by e-mail')
      .openapi({ example: '042917' }),
  })
  .strict()
  .openapi('VerifyOrganizationLinkRequest');

export const OrganizationLinkSchema = z
  .object({
    linkId: z.string(),
    passportId: z.string(),
    organizationId: z.string(),
    email: z.string(),
    status: z.enum(['pending', 'linked']),
    expiresAt: z.string().openapi({ format: 'date-time', description: 'The code works until then (15 minutes)' }),
  })
  .openapi('OrganizationLink');

export const OrganizationLinkVerifiedSchema = z
  .object({
    message: z.string(),
    passportId: z.string(),
    organizationId: z.string(),
    identityTier: z.number().int(),
    attestationId: z.string().openapi({ description: 'The organization’s trust attestation of the membership' }),
  })
  .openapi('OrganizationLinkVerified');
