import { z } from 'zod';
import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  EXPIRY_ACTIONS,
  EXPIRY_OUTCOMES,
  type ResponseKind,
} from '../../domain/approvals/requests';
import type { ApprovalVote as DomainVote } from '../../domain/approvals/quorum';
import { RISK_LEVELS } from '../../domain/routing/risk';
import type { WorkflowFailure } from '../failures';

const JsonObject = z.record(z.string(), z.unknown());

export const RiskFactor = z
  .object({ factor: z.string().min(1).max(200), severity: z.enum(RISK_LEVELS) })
  .meta({ id: 'RiskFactor' });

export const ApprovalVote = z
  .object({
    approver: z.string().meta({ description: 'The seat the vote fills: a named approver, or whoever covers for them' }),
    passport_id: z.string().meta({ description: 'The person who voted: one vote per person' }),
    decision: z.enum(APPROVAL_DECISIONS),
    comment: z.string().optional(),
    covering_for: z.string().optional().meta({ description: 'The named approver this voter covers for' }),
    voted_at: z.string(),
    provenance_id: z.string().meta({ description: 'Ledger transaction of the vote' }),
  })
  .meta({ id: 'ApprovalVote' }) satisfies z.ZodType<DomainVote>;

/**
 * An approval request: what is asked, of whom and until when, and how it ended. The approval workflow holds
 * it (its id is approval_id), the approvals table projects it, the API shows it (api/schemas/approvals.ts);
 * all of them take their fields from here. Fields are in the order the API shows them.
 */
export const ApprovalState = z.object({
  approval_id: z.string().meta({ example: 'apr_3f0c…' }),
  /** The organization the request belongs to; unset in histories from before tenancy (the default one). */
  organization_id: z.string().optional(),
  version: z.number().int(),
  status: z.enum(APPROVAL_STATUSES),
  org_did: z.string().optional(),
  task_id: z.string().optional(),
  agent_id: z.string().optional(),
  execution_id: z
    .string()
    .optional()
    .meta({ description: 'The execution waiting for this approval, when an agent call asked for it' }),
  workflow_id: z.string().optional().meta({ description: 'The workflow DAG whose approval node this is' }),
  requester_passport_id: z.string(),
  approver_passport_id: z.string().optional(),
  approvers: z
    .array(z.string())
    .optional()
    .meta({ description: 'A quorum request’s named approvers (distinct persons, by DID); null: one approver' }),
  required_approvals: z
    .number()
    .int()
    .optional()
    .meta({ description: 'How many of approvers must approve; it is rejected once that many can no longer' }),
  covering_for: z.record(z.string(), z.string()).optional().meta({
    description: 'Approvers who took a named person’s place by a cover when the request was opened: approver → person',
  }),
  action_description: z.string(),
  risk_level: z.enum(RISK_LEVELS),
  risk_factors: z.array(RiskFactor),
  request_data: JsonObject,
  params_schema: JsonObject.optional().meta({
    description:
      'JSON Schema modified_params must fit; null: they may change only request_data’s keys, keeping their types',
  }),
  alternatives: z.array(JsonObject),
  /** The principal that asked. */
  requested_by: z.string(),
  responded_by: z.string().optional(),
  response_comment: z.string().optional(),
  // Documented as a string: the decision word as the responder wrote it.
  response_kind: (z.string() as unknown as z.ZodType<ResponseKind>).optional().meta({
    description:
      'The decision word the responder used (approved, approve, approved_with_modifications, request_changes, …)',
  }),
  modified_params: JsonObject.optional(),
  votes: z.array(ApprovalVote).optional().meta({ description: 'A quorum request’s votes so far, in order' }),
  approvals_needed: z
    .number()
    .int()
    .optional()
    .meta({ description: 'A quorum request’s approvals still needed (0 once approved)' }),
  cancelled_by: z.string().optional(),
  cancel_reason: z.string().optional(),
  provenance_id: z.string().optional().meta({ description: 'Ledger transaction of the latest transition' }),
  failure: (z.object({ type: z.string(), message: z.string() }) as unknown as z.ZodType<WorkflowFailure>)
    .optional()
    .meta({
      description:
        'With status failed: why the request, or its answer, could not be recorded (type invalid_data or storage_failed)',
    }),
  created_at: z.string(),
  responded_at: z.string().optional(),
  /** The deadline of the durable timer: at this instant a pending request becomes expired. */
  expires_at: z.string(),
  on_expiry: z.enum(EXPIRY_ACTIONS).optional().meta({
    description:
      'What expires_at does: reject (status expired), approve (status approved, by no human), escalate (to the next of escalate_to, with a new expires_at; at the last level, reject), hold (stays pending, answerable, past its deadline). null: reject',
  }),
  escalate_to: z
    .array(z.string())
    .optional()
    .meta({ description: 'With on_expiry escalate: the approvers the request moves to, level by level' }),
  escalation_level: z.number().int().optional().meta({ description: 'How many times the request has escalated' }),
  expiry_outcome: z.enum(EXPIRY_OUTCOMES).optional().meta({
    description: 'What the deadline did, once it passed: rejected, approved, escalated or held',
  }),
  updated_at: z.string(),
});
export type ApprovalState = z.infer<typeof ApprovalState>;

/** The fields the request's answer sets; the rest is the request as asked. */
type AnswerField =
  | 'version'
  | 'status'
  | 'responded_by'
  | 'response_comment'
  | 'response_kind'
  | 'modified_params'
  | 'votes'
  | 'approvals_needed'
  | 'escalation_level'
  | 'expiry_outcome'
  | 'cancelled_by'
  | 'cancel_reason'
  | 'provenance_id'
  | 'failure'
  | 'created_at'
  | 'responded_at'
  | 'updated_at';

/** What is asked, of whom, and until when: the workflow's input. */
export type ApprovalRequest = Omit<ApprovalState, AnswerField>;
