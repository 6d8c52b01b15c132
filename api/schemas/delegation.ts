import { CAPABILITY_NAMES, RISK_LEVELS } from '../../domain/identity/capabilities';
import { isPromptScope } from '../../domain/prompts/scopes';
import type { DelegationRow, RevocationRow, TokenWithDelegation } from '../../db/delegation';
import type { IssuedToken } from '../../services/identity/delegations/issue';
import { DEFAULT_DELEGATION_SECONDS, MAX_DELEGATION_SECONDS } from '../../services/identity/delegations/context';
import { DidSchema, listQuerySchema, TimestampSchema } from './common';
import { z } from './zod';

/** The token-type URNs of the exchange (RFC 8693 §3 style). */
export const SESSION_TOKEN_URN = 'urn:handoff:params:oauth:token-type:session';
export const DELEGATION_TOKEN_URN = 'urn:handoff:params:oauth:token-type:delegation';
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

const PromptGrantSchema = z
  .string()
  .max(150)
  .refine(
    isPromptScope,
    'must be a capability name or a prompt grant prompt:<read|publish|rollback|deprecate|*>:<key, or key prefix ending in *>',
  )
  .openapi({
    description:
      'A prompt grant: prompt:<action>:<key-pattern>, e.g. prompt:read:support-* (docs/api.md, prompt grants)',
    example: 'prompt:read:support-*',
  });

/** Capabilities and prompt grants: a prompt grant is narrowed by coverage (prompt:read:support-* covers prompt:read:support-billing). */
export const CapabilityListSchema = z
  .array(z.union([z.enum(CAPABILITY_NAMES as [string, ...string[]]), PromptGrantSchema]))
  .max(CAPABILITY_NAMES.length * 2 + 64)
  .openapi({
    description:
      'Capability names (docs/api.md lists them; x-capability on each operation says which it needs) and prompt grants prompt:<action>:<key-pattern> ' +
      '(action read, publish, rollback, deprecate or *; the key exact or a prefix ending in *). Each must be covered by what the parent holds, else 403 delegation_widening.',
  });

export const boundsFields = {
  duration_seconds: z
    .number()
    .int()
    .min(1)
    .max(MAX_DELEGATION_SECONDS)
    .default(DEFAULT_DELEGATION_SECONDS)
    .openapi({ description: 'Lifetime in seconds, 1..2592000 (30 days); never beyond the parent’s expiry' }),
  environment: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, . _ or -')
    .optional()
    .openapi({
      description:
        'The environment the token is for (production, staging …); inherited from, and fixed by, a parent that names one',
    }),
  risk_level: z.enum(RISK_LEVELS).default('standard').openapi({
    description: 'The highest risk of operation the token may call: low reads, standard writes, high administration',
  }),
};

export const ExchangeRequestSchema = z
  .object({
    grant_type: z.literal(TOKEN_EXCHANGE_GRANT).optional(),
    subject_token: z.string().min(1).max(8192).optional().openapi({
      description: 'The session token (or a delegation token to narrow); else the bearer token of the request',
    }),
    subject_token_type: z.enum([SESSION_TOKEN_URN, DELEGATION_TOKEN_URN]).optional(),
    capabilities: CapabilityListSchema.optional(),
    scopes: CapabilityListSchema.optional().openapi({ description: 'Alias of capabilities' }),
    ...boundsFields,
    required_verification_tier: z.number().int().min(0).max(2).optional().openapi({
      description: 'Refused unless the sign-in reaches it: 1 device key, 2 passkey with user verification',
    }),
    required_identity_tier: z.number().int().min(0).max(2).optional().openapi({
      description: 'Refused unless the Passport reaches it: 1 organization e-mail verified, 2 organization-attested',
    }),
  })
  .openapi('DelegationExchangeRequest');

export const DelegateRequestSchema = z
  .object({
    agentId: z.string().min(1).max(512).openapi({
      description: 'An agent Passport id or DID, a platform agent id, or a registered orchestration agent id',
    }),
    capabilities: CapabilityListSchema,
    ...boundsFields,
  })
  .openapi('DelegateToAgentRequest');

export const ReasonSchema = z.object({ reason: z.string().min(1).max(1000) }).openapi('DelegationTokenReason');

export const RevokeDelegationSchema = z
  .object({
    revoked_by: DidSchema.optional().openapi({
      description: 'Must be the caller’s own DID; recorded as the caller when omitted',
    }),
    reason: z.string().min(1).max(1000).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('RevokeDelegationRequest');

export const TokenIdParamsSchema = z.object({ token_id: z.string().min(1).max(200) });
export const DelegationIdParamsSchema = z.object({ delegation_id: z.string().min(1).max(200) });

export const ListTokensQuerySchema = listQuerySchema.extend({
  delegation_id: z.string().min(1).max(200).optional(),
  status: z.enum(['active', 'rotated', 'revoked']).optional(),
});
export const TOKEN_SORTABLE = { created_at: 'delegation_tokens.created_at' };

export const ListRevocationsQuerySchema = listQuerySchema.extend({
  revoked_by: z.string().min(1).max(512).optional(),
  since: TimestampSchema.optional(),
});
export const REVOCATION_SORTABLE = { revoked_at: 'delegation_revocations.revoked_at' };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Who delegated, to whom, and the bounds: what a token and an issued token show of their delegation. */
function grantedBy(
  delegation: DelegationRow,
): Pick<DelegationRow, 'passport_id' | 'did' | 'agent_did' | 'capabilities' | 'environment' | 'risk_level'> {
  return {
    passport_id: delegation.passport_id,
    did: delegation.did,
    agent_did: delegation.agent_did,
    capabilities: delegation.capabilities,
    environment: delegation.environment,
    risk_level: delegation.risk_level,
  };
}

export const DelegationTokenSchema = z
  .object({
    token_id: z.string().openapi({ description: 'The token’s jti' }),
    delegation_id: z.string().openapi({ description: 'The family: the token and its rotations' }),
    status: z.enum(['active', 'rotated', 'revoked']),
    passport_id: z.string(),
    did: z.string().openapi({ description: 'The delegator (the token’s sub)' }),
    agent_did: z
      .string()
      .nullable()
      .openapi({ description: 'The agent it was delegated to (act.sub); null when the person holds it' }),
    capabilities: z.array(z.string()),
    environment: z.string().nullable(),
    risk_level: z.enum(RISK_LEVELS),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    revoke_reason: z.string().nullable(),
    replaced_by: z.string().nullable().openapi({ description: 'The token that replaced it when it was rotated' }),
  })
  .openapi('DelegationToken');

export function tokenView(row: TokenWithDelegation) {
  const { delegation } = row;
  return {
    token_id: row.token_id,
    delegation_id: row.delegation_id,
    status: row.status,
    ...grantedBy(delegation),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: iso(row.revoked_at),
    revoke_reason: row.revoke_reason,
    replaced_by: row.replaced_by,
  };
}

export const IssuedTokenSchema = z
  .object({
    delegation_id: z.string(),
    token_id: z.string(),
    token: z.string().openapi({ description: 'The delegation token (shown once): send it as Authorization: Bearer' }),
    passport_id: z.string(),
    did: z.string(),
    agent_did: z.string().nullable(),
    capabilities: z.array(z.string()),
    environment: z.string().nullable(),
    risk_level: z.enum(RISK_LEVELS),
    verification_tier: z.number().int(),
    identity_tier: z.number().int(),
    created_at: z.string(),
    expires_at: z.string(),
    access_token: z.string().openapi({ description: 'RFC 8693: the same token' }),
    issued_token_type: z.literal(DELEGATION_TOKEN_URN),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    scope: z.string().openapi({ description: 'RFC 8693: the capabilities, space-separated' }),
  })
  .openapi('IssuedDelegationToken');

export function issuedView(issued: IssuedToken, at: Date) {
  const { delegation } = issued;
  return {
    delegation_id: delegation.delegation_id,
    token_id: issued.token_id,
    token: issued.token,
    ...grantedBy(delegation),
    verification_tier: delegation.verification_tier,
    identity_tier: delegation.identity_tier,
    created_at: delegation.created_at.toISOString(),
    expires_at: delegation.expires_at.toISOString(),
    access_token: issued.token,
    issued_token_type: DELEGATION_TOKEN_URN,
    token_type: 'Bearer' as const,
    expires_in: Math.max(0, Math.floor((delegation.expires_at.getTime() - at.getTime()) / 1000)),
    scope: delegation.capabilities.join(' '),
  };
}

export const RevocationSchema = z
  .object({
    id: z.string(),
    delegation_id: z.string(),
    token_id: z
      .string()
      .nullable()
      .openapi({ description: 'The one token revoked; null when the whole delegation is' }),
    revoked_by: z.string(),
    revoked_at: z.string(),
    reason: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('DelegationRevocation');

export function revocationView(row: RevocationRow) {
  return {
    id: row.id,
    delegation_id: row.delegation_id,
    token_id: row.token_id,
    revoked_by: row.revoked_by,
    revoked_at: row.revoked_at.toISOString(),
    reason: row.reason,
    metadata: row.metadata,
  };
}

// The spec gives a revocation object when revoked; the field is absent otherwise, never null.
const RevocationWhenRevokedSchema = RevocationSchema.optional().openapi({
  description: 'Present only when revoked: the revocation of this delegation, or of the one above it that revoked it',
});

export const RevocationStatusSchema = z
  .object({ delegation_id: z.string(), is_revoked: z.boolean(), revocation: RevocationWhenRevokedSchema })
  .openapi('DelegationRevocationStatus');

export function revocationStatusView(delegationId: string, revocation: RevocationRow | undefined) {
  return {
    delegation_id: delegationId,
    is_revoked: revocation !== undefined,
    ...(revocation ? { revocation: revocationView(revocation) } : {}),
  };
}

export const DelegationStatusSchema = z
  .object({
    delegation_id: z.string(),
    status: z.enum(['active', 'revoked', 'expired']),
    is_revoked: z.boolean(),
    passport_id: z.string(),
    did: z.string(),
    agent_did: z.string().nullable(),
    parent_delegation_id: z.string().nullable(),
    capabilities: z.array(z.string()),
    environment: z.string().nullable(),
    risk_level: z.enum(RISK_LEVELS),
    verification_tier: z.number().int(),
    identity_tier: z.number().int(),
    created_at: z.string(),
    expires_at: z.string(),
    revocation: RevocationWhenRevokedSchema,
  })
  .openapi('DelegationStatus');

export function delegationStatusView(
  delegation: DelegationRow,
  status: 'active' | 'revoked' | 'expired',
  revocation: RevocationRow | undefined,
) {
  return {
    delegation_id: delegation.delegation_id,
    status,
    is_revoked: status === 'revoked',
    passport_id: delegation.passport_id,
    did: delegation.did,
    agent_did: delegation.agent_did,
    parent_delegation_id: delegation.parent_delegation_id,
    capabilities: delegation.capabilities,
    environment: delegation.environment,
    risk_level: delegation.risk_level,
    verification_tier: delegation.verification_tier,
    identity_tier: delegation.identity_tier,
    created_at: delegation.created_at.toISOString(),
    expires_at: delegation.expires_at.toISOString(),
    ...(revocation ? { revocation: revocationView(revocation) } : {}),
  };
}
