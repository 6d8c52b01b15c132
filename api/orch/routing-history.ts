import type { Knex } from 'knex';
import { listRoutings, type RoutingHistoryRow } from '../../db/routing-history';
import { HUMAN_ACT_CAPABILITIES } from '../../domain/identity/capabilities';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { ESCALATION_LEVELS, ROUTING_DECISIONS, ROUTING_MODES } from '../../domain/routing/decision';
import { ROUTING_STATUSES } from '../../domain/routing/progress';
import { FEEDBACK_VERDICTS, recordFeedback } from '../../services/routing/feedback';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { DidSchema, LedgerAnchorSchema, listQuerySchema, TimestampSchema } from '../schemas/common';
import { AssigneeSchema, assigneeView, RoutingIdParamsSchema } from '../schemas/routing';
import { z } from '../schemas/zod';

const bound = z.coerce.number().min(0).max(1);

const HistoryQuerySchema = listQuerySchema.extend({
  status: z.enum(ROUTING_STATUSES).optional(),
  decision: z.enum(ROUTING_DECISIONS).optional(),
  task_type: z.string().min(1).max(200).optional(),
  agent: z.string().min(1).max(300).optional().openapi({ description: 'The ai_agent_id' }),
  domain: z.string().min(1).max(200).optional(),
  escalation_level: z.enum(ESCALATION_LEVELS).optional(),
  risk_level: z.enum(RISK_LEVELS).optional(),
  confidence__gte: bound.optional(),
  confidence__lte: bound.optional(),
  date__gte: TimestampSchema.optional().openapi({ description: 'Created at or after (ISO 8601)' }),
  date__lte: TimestampSchema.optional().openapi({ description: 'Created at or before (ISO 8601)' }),
});

const RoutingHistoryItemSchema = z
  .object({
    routing_id: z.string(),
    status: z.enum(ROUTING_STATUSES),
    decision: z.enum(ROUTING_DECISIONS).nullable(),
    reason: z.string().nullable(),
    task_type: z.string(),
    ai_agent_id: z.string(),
    ai_confidence: z.number(),
    risk_level: z.enum(RISK_LEVELS).nullable(),
    domain: z.string().nullable(),
    routing_mode: z.enum(ROUTING_MODES).nullable(),
    escalation_level: z.enum(ESCALATION_LEVELS),
    assigned_to: AssigneeSchema.nullable(),
    fourth_law_triggered: z.boolean().nullable(),
    safety_violations: z.number().int(),
    rules_triggered: z.array(z.string()),
    escalated_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('RoutingHistoryItem');

const SORTABLE = {
  created_at: 'created_at',
  ai_confidence: 'ai_confidence',
  confidence: 'ai_confidence',
  status: 'status',
  task_type: 'task_type',
  decision: 'decision',
  updated_at: 'updated_at',
};

function render(row: RoutingHistoryRow): z.output<typeof RoutingHistoryItemSchema> {
  return {
    routing_id: row.routing_id,
    status: row.status,
    decision: row.decision ?? null,
    reason: row.reason ?? null,
    task_type: row.task_type,
    ai_agent_id: row.ai_agent_id,
    ai_confidence: row.ai_confidence,
    risk_level: row.risk_level ?? null,
    domain: row.domain ?? null,
    routing_mode: row.routing_mode ?? null,
    escalation_level: row.escalation_level,
    assigned_to: row.assigned_to ? assigneeView(row.assigned_to) : null,
    fourth_law_triggered: row.fourth_law_triggered ?? null,
    safety_violations: row.safety_violation_count ?? 0,
    rules_triggered: row.rules_triggered ?? [],
    escalated_at: row.escalated_at ? row.escalated_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const FeedbackRequestSchema = z
  .object({
    verdict: z
      .enum(FEEDBACK_VERDICTS)
      .openapi({ description: 'confirmed: the outcome was right; overturned: it was wrong; flagged: it needs a look' }),
    reason: z.string().min(1).max(10_000),
    submitted_by: DidSchema.optional().openapi({
      description: 'The signed-in person (their DID); omitted, it is them. Naming anyone else is 403 actor_mismatch',
    }),
  })
  .strict()
  .openapi('RoutingFeedbackRequest');

const FeedbackSchema = z
  .object({
    feedback_id: z.string(),
    routing_id: z.string(),
    verdict: z.enum(FEEDBACK_VERDICTS),
    reason: z.string(),
    submitted_by: z.string(),
    created_at: z.string(),
    ledger_anchor: LedgerAnchorSchema,
  })
  .openapi('RoutingFeedback');

export function registerRoutingHistoryRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const routing = routeGroup(api, { tags: ['Routing'], auth: 'orch:read', rateLimit: 'routing-requests' });
  routing.list({
    path: '/v1/orch/routing/history',
    operationId: 'listRoutingHistory',
    summary: 'The routings decided so far, filtered, sorted and paged',
    description:
      'Filters by field; confidence__gte/__lte and date__gte/__lte bound ai_confidence and created_at. sort: created_at, ai_confidence, status, task_type, decision, updated_at (leading - descends).',
    query: HistoryQuerySchema,
    page: { description: 'A page of routings', item: RoutingHistoryItemSchema, name: 'RoutingHistoryPage' },
    sort: { allowed: SORTABLE, fallback: '-created_at', uniqueKey: 'routing_id' },
    list: ({ query, principal, page }) => listRoutings(deps.db, principal.organization_id, page, query),
    view: render,
  });

  routing.route({
    method: 'post',
    path: '/v1/orch/routing/{routing_id}/feedback',
    operationId: 'recordRoutingFeedback',
    summary: 'Confirm, overturn or flag a completed routing’s outcome',
    description:
      'The decision outcome and feedback of the spec: an autonomous decision overturned or flagged counts as the agent’s false negative. Anchored in ' +
      'the routing’s provenance, which names the signed-in person who gave it (a session token; or an agent with their delegation token holding ' +
      `${HUMAN_ACT_CAPABILITIES.routing_feedback}) and the credential that authenticated them.`,
    auth: 'orch:write',
    request: { params: RoutingIdParamsSchema, body: FeedbackRequestSchema },
    responses: {
      201: { description: 'The recorded feedback', schema: FeedbackSchema },
      403: { description: 'person_required, actor_mismatch or delegation_not_covering' },
      404: { description: 'routing_not_found' },
      409: { description: 'routing_not_completed: the routing has no outcome yet' },
    },
    handler: async ({ params, body, principal }) => {
      const result = await recordFeedback(deps.db, { routing_id: params.routing_id, ...body }, principal);
      if (!result.ok && 'detail' in result) throw new Problem(result.code, result.detail);
      if (!result.ok && result.code === 'routing_not_found')
        throw new Problem('routing_not_found', `No routing ${params.routing_id}`);
      if (!result.ok)
        throw new Problem(
          'routing_not_completed',
          `Routing ${params.routing_id} is ${result.status ?? 'not completed'}; feedback is for completed routings`,
        );
      return { status: 201, body: result.feedback };
    },
  });
}
