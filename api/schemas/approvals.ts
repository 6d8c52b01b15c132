import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  ESCALATION_DECISIONS,
  EXPIRY_ACTIONS,
  SIMPLE_DECISIONS,
} from '../../domain/approvals/requests';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { ApprovalState, RiskFactor } from '../../contracts/aggregates/approval';
import { viewOf } from '../../lib/shape';
import { DidSchema, listQuerySchema, TimestampSchema } from './common';
import { z } from './zod';

const JsonObjectSchema = z.record(z.string(), z.unknown());

export const RiskFactorSchema = RiskFactor;

const approval = viewOf(ApprovalState, {
  rename: { approval_id: 'id' },
  hide: ['organization_id', 'version', 'requested_by'],
});

export const ApprovalSchema = approval.schema.openapi('ApprovalRequest');

export const approvalView = approval.of;

export const CreateApprovalSchema = z
  .object({
    org_did: DidSchema.optional().openapi({ description: 'The organization whose escalation queue shows the request' }),
    task_id: z.string().min(1).max(200).optional(),
    agent_id: z.string().min(1).max(300).optional().openapi({ description: 'The agent whose action needs approval' }),
    requester_passport_id: DidSchema,
    approver_passport_id: DidSchema.optional(),
    approvers: z.array(DidSchema).min(1).max(20).optional().openapi({
      description:
        'A quorum request: the named approvers (distinct persons, not the requester), instead of approver_passport_id',
    }),
    required_approvals: z.number().int().min(1).max(20).optional().openapi({
      description:
        'With approvers: how many must approve (default: all of them). Each votes once; the request is approved at that many approvals and rejected as soon as that many can no longer be reached',
    }),
    action_description: z.string().min(1).max(2000),
    risk_level: z.enum(RISK_LEVELS).optional().openapi({
      description: 'Default: evaluated from request_data (amount, irreversible, contains_personal_data, risk_level)',
    }),
    risk_factors: z.array(RiskFactorSchema).max(50).optional(),
    request_data: JsonObjectSchema.default({}),
    params_schema: JsonObjectSchema.optional().openapi({
      description: 'JSON Schema (local $refs only) that modified_params must fit',
    }),
    alternatives: z.array(JsonObjectSchema).max(20).default([]),
    expires_at: TimestampSchema.optional().openapi({ description: 'Default: now + APPROVAL_DEFAULT_TTL_SECONDS' }),
    expires_in_seconds: z.number().int().positive().optional().openapi({ description: 'Instead of expires_at' }),
    on_expiry: z.enum(EXPIRY_ACTIONS).default('reject').openapi({
      description:
        'What the deadline does: reject (status expired), approve (status approved, by no human), escalate (to the next of escalate_to, each level as long as the first lifetime; at the last level, reject) or hold (stays pending and answerable past its deadline). The request and its approval.expired event state the outcome (expiry_outcome)',
    }),
    escalate_to: z.array(DidSchema).min(1).max(10).optional().openapi({
      description: 'With on_expiry escalate: the approvers the request moves to at each deadline, in order',
    }),
  })
  .strict()
  .openapi('CreateApprovalRequest');

export const RespondApprovalSchema = z
  .discriminatedUnion('decision', [
    z
      .object({
        decision: z.enum(APPROVAL_DECISIONS),
        responded_by: DidSchema.optional().openapi({
          description:
            'The signed-in person (their DID); omitted, it is them. Naming anyone else is 403 actor_mismatch',
        }),
        comment: z.string().max(10_000).optional(),
        modified_params: JsonObjectSchema.optional().openapi({
          description: 'With approved: the parameters to use instead; checked against params_schema',
        }),
      })
      .strict(),
    z
      .object({ decision: z.enum(SIMPLE_DECISIONS), reason: z.string().max(10_000).optional() })
      .strict()
      .openapi({ description: 'Simplified variant: responded_by is the signed-in person' }),
  ])
  .openapi('RespondApprovalRequest');

type RespondApprovalBody = z.infer<typeof RespondApprovalSchema>;
/** The full variant (approved | rejected), not the simplified one (approve | reject). */
export function isFullResponse(body: RespondApprovalBody): body is Exclude<RespondApprovalBody, { reason?: unknown }> {
  return (APPROVAL_DECISIONS as readonly string[]).includes(body.decision);
}

export const CancelApprovalSchema = z
  .object({
    cancelled_by: DidSchema.optional().openapi({
      description:
        'The signed-in person (their DID); omitted (the simplified variant), it is them. Naming anyone else is 403 actor_mismatch',
    }),
    reason: z.string().max(10_000).optional(),
  })
  .strict()
  .openapi('CancelApprovalRequest');

export const CancelledApprovalSchema = ApprovalSchema.extend({ message: z.string() }).openapi('CancelledApproval');

export const ApprovalIdParamsSchema = z.object({
  approval_id: z.string().regex(/^apr_[A-Za-z0-9-]{1,64}$/, 'must be an approval id (apr_…)'),
});

export const ListApprovalsQuerySchema = listQuerySchema.extend({
  status: z.enum(APPROVAL_STATUSES).optional(),
  approver: DidSchema.optional(),
  requester: DidSchema.optional(),
  agent_id: z.string().min(1).optional(),
});

export const EscalationQueueQuerySchema = listQuerySchema.extend({
  orgDid: DidSchema.optional().openapi({ description: 'The organization whose queue to list; all when omitted' }),
  status: z.enum(APPROVAL_STATUSES).default('pending'),
});

export const RespondEscalationSchema = z
  .object({
    decision: z.enum(ESCALATION_DECISIONS),
    notes: z.string().max(10_000).optional(),
    modifications: z
      .string()
      .max(100_000)
      .optional()
      .openapi({ description: 'With approved_with_modifications: a JSON object of the modified parameters' }),
    responded_by: DidSchema.optional().openapi({
      description: 'The signed-in person (their DID); omitted, it is them. Naming anyone else is 403 actor_mismatch',
    }),
  })
  .strict()
  .openapi('RespondEscalationRequest');

export const APPROVAL_SORTABLE = { created_at: 'created_at', expires_at: 'expires_at' };
