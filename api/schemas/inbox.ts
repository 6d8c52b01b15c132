import { INBOX_ITEM_KINDS, INBOX_URGENCIES } from '../../domain/inbox/urgency';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { RiskFactorSchema } from './approvals';
import { z } from './zod';

const JsonObject = z.record(z.string(), z.unknown());
const base64url = z
  .string()
  .min(1)
  .max(20_000)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');

export const InboxItemSchema = z
  .object({
    item_id: z.string().openapi({ description: 'The routing (rt_…) or approval request (apr_…)' }),
    kind: z.enum(INBOX_ITEM_KINDS).openapi({
      description:
        'routing: escalated to you; approval: addressed to you; escalation: the escalation queue’s, addressed to nobody',
    }),
    title: z.string(),
    task_type: z.string().nullable(),
    urgency: z.enum(INBOX_URGENCIES),
    risk_level: z.enum(RISK_LEVELS),
    risk_factors: z.array(RiskFactorSchema),
    deadline: z
      .string()
      .nullable()
      .openapi({ description: 'When it leaves you: a routing escalates, a request expires' }),
    deadline_kind: z.enum(['escalates', 'expires']).nullable(),
    seconds_left: z.number().int().nullable(),
    agent_id: z.string().nullable(),
    recommendation: z.string().nullable(),
    confidence: z.number().nullable(),
    context: JsonObject,
    safety_analysis: JsonObject.nullable(),
    params_schema: JsonObject.nullable(),
    decisions: z.array(z.string()),
    escalation_chain: z.array(
      z.object({
        level: z.number().int(),
        did: z.string(),
        name: z.string().nullable(),
        escalation_level: z.string(),
        since: z.string(),
        current: z.boolean(),
        covering_for: z
          .string()
          .nullable()
          .openapi({ description: 'The reviewer this step’s holder covers for, or null' }),
        covering_for_name: z.string().nullable(),
      }),
    ),
    created_at: z.string(),
    version: z.number().int(),
  })
  .openapi('InboxItem');

export const InboxItemDetailSchema = InboxItemSchema.extend({
  provenance: z.array(
    z.object({
      step_id: z.string(),
      action: z.string(),
      actor: z.string(),
      timestamp: z.string(),
      reasoning: z.string(),
      transaction_id: z.string(),
    }),
  ),
}).openapi('InboxItemDetail');

export const InboxPageSchema = z.object({ data: z.array(InboxItemSchema) }).openapi('InboxItems');

export const InboxItemParamsSchema = z.object({
  item_id: z.string().regex(/^(rt|apr)_[A-Za-z0-9-]{1,64}$/, 'must be a routing (rt_…) or approval (apr_…) id'),
});

export const DecisionNonceSchema = z
  .object({
    nonce: z.string(),
    expires_at: z.string(),
    rp_id: z.string().openapi({ description: 'The relying party the passkey signs for' }),
  })
  .openapi('DecisionNonce');

export const InboxDecisionRequestSchema = z
  .object({
    decision: z.enum(['approved', 'rejected', 'modified']).openapi({
      description:
        'A routing: approved, rejected or modified; a request: approved (maybe with modified_parameters) or rejected',
    }),
    comment: z.string().max(10_000).optional(),
    modified_parameters: JsonObject.optional().openapi({
      description:
        'A request: the parameters to use instead, checked against its params_schema; a modified routing: {recommendation}',
    }),
    signature: z
      .object({
        nonce: base64url,
        credential_id: base64url,
        authenticator_data: base64url,
        client_data_json: base64url,
        signature: base64url,
      })
      .strict()
      .openapi({
        description:
          'The passkey’s assertion over the challenge base64url(SHA-256(canonical decision)) (docs/decision-signatures.md)',
      }),
  })
  .strict()
  .openapi('InboxDecisionRequest');

const SignatureEnvelopeSchema = z
  .object({
    format: z.literal('handoff.decision-signature/v1'),
    decision: JsonObject,
    signer: z.object({ did: z.string(), verification_method: z.string(), credential_id: z.string() }),
    rp_id: z.string(),
    assertion: z.object({ authenticator_data: z.string(), client_data_json: z.string(), signature: z.string() }),
  })
  .openapi('DecisionSignature');

export const InboxDecisionSchema = z
  .object({ item_id: z.string(), status: z.string(), signature: SignatureEnvelopeSchema })
  .openapi('InboxDecision');

export const DecisionSignatureBundleSchema = z
  .object({
    format: z.literal('handoff.decision-signature-bundle/v1'),
    signature: SignatureEnvelopeSchema,
    did_document: JsonObject,
    comment: z.string().nullable(),
    ledger_record: z.object({ transaction_id: z.string(), leaf_hash: z.string(), body: z.string() }),
  })
  .openapi('DecisionSignatureBundle');
