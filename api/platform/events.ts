import type { Knex } from 'knex';
import { EVENT_SORT_COLUMNS, findEvent, listEvents, type EventRow } from '../../db/events';
import { isEventKind } from '../../domain/provenance/events';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { listQuerySchema, TimestampSchema } from '../schemas/common';
import { EventKindSchema } from '../schemas/webhooks';
import { z } from '../schemas/zod';

const EventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_6f1c…' }),
    event: EventKindSchema,
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()),
    provenance: z
      .object({
        subject_id: z.string().openapi({ description: 'The routing (or other resource) the record belongs to' }),
        step_id: z.string(),
        ledger_anchor: z.object({ transaction_id: z.string(), block_number: z.number().int() }),
        url: z.string().nullable().openapi({
          description: 'For a routing, its decision chain (GET /v1/orch/provenance/{routing_id}), this record included',
        }),
      })
      .openapi({ description: 'The provenance record the event was appended with, in the same transaction' }),
  })
  .openapi('Event', { description: 'The body webhooks deliver ({id, event, created_at, data}), with its provenance' });

const EventKindListSchema = z
  .string()
  .transform((value, ctx) => {
    const kinds = value
      .split(',')
      .map((kind) => kind.trim())
      .filter(Boolean);
    for (const kind of kinds)
      if (!isEventKind(kind)) ctx.addIssue({ code: 'custom', message: `${kind} is not an event kind` });
    return kinds;
  })
  .openapi({ description: 'One kind or several, comma-separated', example: 'routing.escalated,escalation.triggered' });

const ListEventsQuerySchema = listQuerySchema.extend({
  event: EventKindListSchema.optional(),
  type: EventKindListSchema.optional().openapi({ description: 'Alias of event' }),
  subject_id: z.string().min(1).optional().openapi({ description: 'Events of one routing (or other resource)' }),
  created_at__gte: TimestampSchema.optional(),
  created_at__lte: TimestampSchema.optional(),
});

function renderEvent(row: EventRow) {
  return {
    id: row.event_id,
    event: row.event,
    created_at: row.created_at.toISOString(),
    data: row.data,
    provenance: {
      subject_id: row.subject_id,
      step_id: row.step_id,
      ledger_anchor: { transaction_id: row.transaction_id, block_number: row.block_number },
      url: row.subject_id.startsWith('rt_') ? `/v1/orch/provenance/${row.subject_id}` : null,
    },
  };
}

/** The events the service emitted, listed and read, each with its provenance record. */
export function registerEventRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const events = routeGroup(api, { tags: ['Events'], auth: 'platform:read', rateLimit: 'provenance-queries' });
  events.list({
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'The events the service emitted, newest first, each with its provenance record',
    query: ListEventsQuerySchema,
    page: { description: 'A page of events', item: EventSchema, name: 'EventPage' },
    sort: { allowed: EVENT_SORT_COLUMNS, fallback: '-created_at', uniqueKey: EVENT_SORT_COLUMNS.event_id },
    list: ({ query, principal, page }) =>
      listEvents(deps.db, principal.organization_id, page, { ...query, events: query.event ?? query.type }),
    view: renderEvent,
  });

  events.get({
    path: '/v1/events/{event_id}',
    operationId: 'getEvent',
    summary: 'One event with its provenance record',
    params: z.object({ event_id: z.string().min(1).max(100) }),
    found: { description: 'The event', schema: EventSchema },
    missing: {
      code: 'event_not_found',
      description: 'No such event',
      detail: ({ params }) => `No event ${params.event_id}`,
    },
    find: ({ params, principal }) => findEvent(deps.db, principal.organization_id, params.event_id),
    view: renderEvent,
  });
}
