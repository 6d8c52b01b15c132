import { z } from './zod';
import { listQuerySchema } from './common';

const signature = z.string().openapi({
  description:
    'The document without this field, as a compact JWS (EdDSA, typ deployment-compliance+jws) signed with the deployment’s key: ' +
    'verify it with the key of its kid in /.well-known/jwks.json; its payload is the document',
});

const InvariantCheckSchema = z.object({
  name: z.enum([
    'server_side_key_generation',
    'private_key_access',
    'biometric_binding_hash_used',
    'webauthn_required_for_humans',
  ]),
  value: z.boolean(),
  evidence: z.string().openapi({ description: 'What the value was read from' }),
});

export const ProtocolComplianceSchema = z
  .object({
    deployment_id: z.string().openapi({ description: 'The deployment’s issuer URL' }),
    protocol_version: z.string(),
    compliance: z.object({
      human_passport_minting: z.enum(['device_only', 'server_assisted']),
      attestation_formats_accepted: z.array(z.string()),
      ledger_sync_status: z.enum(['synced', 'behind']),
      passport_count: z.number().int(),
      verification_count: z
        .number()
        .int()
        .openapi({ description: 'Attestations issued to Passports after a verification' }),
      last_compliance_check: z.string().openapi({ format: 'date-time' }),
    }),
    invariants: z.object({
      server_side_key_generation: z.boolean(),
      private_key_access: z.boolean(),
      biometric_binding_hash_used: z.boolean(),
      webauthn_required_for_humans: z.boolean(),
    }),
    invariant_checks: z.array(InvariantCheckSchema),
    ledger: z.object({
      last_sealed_block: z.number().int().nullable(),
      tree_size: z.number().int(),
      unsealed_records: z.number().int(),
    }),
    jwks_uri: z.string(),
    signature,
  })
  .openapi('ProtocolCompliance');

export const NetworkVerificationSchema = z
  .object({
    deployment_id: z.string(),
    network_verification: z.enum(['local_only']),
    explanation: z.string(),
    mitigations: z.array(z.string()),
    risks: z.object({ walled_garden_possible: z.boolean(), blast_radius: z.string(), risk_acceptance: z.string() }),
    recommendations: z.array(z.string()),
    checked_at: z.string().openapi({ format: 'date-time' }),
    signature,
  })
  .openapi('NetworkVerification');

const Bucket = z.enum(['healthy', 'degraded', 'unhealthy']);

const OrganizationHealthItemSchema = z
  .object({
    organization_id: z.string(),
    org_did: z.string(),
    name: z.string(),
    bucket: Bucket,
    checks: z.array(
      z.object({
        name: z.enum([
          'approvals_past_expiry',
          'executions_failing',
          'executions_queued_stale',
          'connectors_needing_reconnect',
        ]),
        status: z.enum(['pass', 'fail']),
        value: z.number().int(),
        detail: z.string(),
      }),
    ),
  })
  .openapi('OrganizationHealthItem');

export const OrganizationsHealthPageSchema = z
  .object({
    platform: z.object({
      status: Bucket,
      checks: z.array(
        z.object({
          name: z.string(),
          status: z.enum(['pass', 'fail']),
          latency_ms: z.number().int(),
          detail: z.string().optional(),
        }),
      ),
    }),
    data: z.array(OrganizationHealthItemSchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    total_count: z.number().int(),
    checked_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('OrganizationsHealthPage');

export const OrganizationsHealthQuerySchema = listQuerySchema;
