import type { Knex } from 'knex';
import { listAuditEntries, type AuditRow } from '../../db/audit';
import { actionsOfEventType, auditDetails, auditEventType } from '../../domain/provenance/audit';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { listRoute } from '../list-route';
import type { ApiBuilder } from '../route';
import { isStorableTimestamp, LedgerAnchorSchema, listQuerySchema, pageSchema } from '../schemas/common';
import { z } from '../schemas/zod';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

const dateOrDateTime = z
  .string()
  .refine(
    (value) =>
      /^\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) &&
      !Number.isNaN(Date.parse(value)) &&
      isStorableTimestamp(value),
    {
      message:
        'must be a date (YYYY-MM-DD, a UTC day) or an ISO 8601 date-time, with an offset within ±15:59 and a year from 0001',
    },
  );

const AuditQuerySchema = listQuerySchema
  .extend({
    start_date: dateOrDateTime
      .optional()
      .openapi({ description: 'Entries at or after it (a date means the start of that UTC day)' }),
    end_date: dateOrDateTime
      .optional()
      .openapi({ description: 'Entries up to and including it (a date means the whole UTC day)' }),
    date__gte: dateOrDateTime
      .optional()
      .openapi({ description: 'Entries at or after it; combined with start_date, the later one applies' }),
    event_type: z.string().min(1).max(100).optional().openapi({
      description:
        'routing_decision, escalation_triggered, routing_resolution, routing_expired, or another recorded action',
    }),
    type: z.string().min(1).max(100).optional().openapi({ description: 'Alias of event_type' }),
    task_type: z.string().min(1).max(200).optional(),
    routing_id: z.string().min(1).max(200).optional(),
  })
  .superRefine((query, context) => {
    if (query.event_type && query.type && query.event_type !== query.type) {
      context.addIssue({
        code: 'custom',
        path: ['type'],
        message: 'is an alias of event_type and must not differ from it',
      });
    }
    if (query.start_date && query.end_date && Date.parse(query.start_date) > Date.parse(query.end_date)) {
      context.addIssue({ code: 'custom', path: ['end_date'], message: 'must not be before start_date' });
    }
  });

const AuditEntrySchema = z
  .object({
    entry_id: z.string().openapi({ description: 'The provenance record’s ledger transaction id' }),
    event_id: z.string().openapi({ description: 'Same as entry_id (the name the spec’s cursor shape uses)' }),
    timestamp: z.string(),
    event_type: z.string().openapi({ example: 'routing_decision' }),
    type: z.string().openapi({ description: 'Same as event_type (the name the spec’s cursor shape uses)' }),
    routing_id: z
      .string()
      .nullable()
      .openapi({ description: 'The routing the record belongs to; null for other subjects' }),
    subject_id: z.string(),
    task_type: z.string().nullable(),
    actor: z.object({
      type: z.enum(['ai_agent', 'orch_core', 'human']),
      did: z.string().optional(),
      agent_id: z.string().optional(),
    }),
    details: z.object({
      rule_triggered: z.string().nullable(),
      risk_level: z.string().nullable(),
      assigned_to: z
        .string()
        .nullable()
        .openapi({ description: 'DID of whoever the step assigned (or, for a resolution, who resolved it)' }),
      action: z.string(),
      summary: z.string().openapi({ description: 'The record’s reasoning' }),
    }),
    ledger_anchor: LedgerAnchorSchema,
    leaf_index: z.number().int().nullable(),
  })
  .openapi('AuditEntry');

const AuditPageSchema = pageSchema(AuditEntrySchema, 'AuditEntryPage').openapi({
  description:
    'Of the spec’s two shapes this is the cursor-pagination envelope: keyset cursors stay stable while entries keep being appended, ' +
    'which page numbers over a growing log cannot. Each entry carries both the Audit entry fields and the event_id/type names.',
});

const SORTABLE = { timestamp: 'e.recorded_at' };

function render(row: AuditRow) {
  const entry = JSON.parse(row.body) as ProvenanceEntry;
  const event_type = auditEventType(row.action);
  return {
    entry_id: row.transaction_id,
    event_id: row.transaction_id,
    timestamp: new Date(row.recorded_at).toISOString(),
    event_type,
    type: event_type,
    routing_id: row.routing_id,
    subject_id: row.subject_id,
    task_type: row.task_type,
    actor: {
      type: entry.actor.type,
      ...(entry.actor.did ? { did: entry.actor.did } : {}),
      ...(entry.actor.agent_id ? { agent_id: entry.actor.agent_id } : {}),
    },
    details: auditDetails(entry, row.risk_level),
    ledger_anchor: { transaction_id: row.transaction_id, block_number: row.block_number },
    leaf_index: row.leaf_index,
  };
}

const startOf = (value: string) => new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
/** The first instant after the range an end bound names: the next day for a date, the next millisecond for a date-time. */
const after = (value: string) =>
  new Date(DATE_ONLY.test(value) ? Date.parse(`${value}T00:00:00.000Z`) + DAY_MS : Date.parse(value) + 1);

export function registerAuditRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  listRoute(api, {
    path: '/v1/orch/audit',
    operationId: 'listAuditEntries',
    summary: 'The audit log: every provenance record as an entry, with its ledger anchor',
    description: 'Newest first by default (sort=timestamp for oldest first). Filters combine with AND.',
    tags: ['Audit'],
    auth: 'audit:read',
    rateLimit: 'audit-logs',
    query: AuditQuerySchema,
    page: { description: 'A page of audit entries', schema: AuditPageSchema },
    sort: { allowed: SORTABLE, fallback: '-timestamp', uniqueKey: 'e.seq' },
    list: ({ query, principal, page }) => {
      const starts = [query.start_date, query.date__gte]
        .filter((value): value is string => value !== undefined)
        .map(startOf);
      const eventType = query.event_type ?? query.type;
      return listAuditEntries(deps.db, principal.organization_id, page, {
        from: starts.length > 0 ? new Date(Math.max(...starts.map((date) => date.getTime()))) : undefined,
        before: query.end_date ? after(query.end_date) : undefined,
        actions: eventType ? actionsOfEventType(eventType) : undefined,
        task_type: query.task_type,
        routing_id: query.routing_id,
      });
    },
    view: render,
  });
}
