import type { z } from 'zod';
import { ApprovalState } from '../../contracts/aggregates/approval';
import { ApprovalSchema } from '../../api/schemas/approvals';
import { ExecutionState } from '../../contracts/aggregates/execution';
import { ExecutionSchema } from '../../api/schemas/executions';
import { DeliveryState } from '../../contracts/aggregates/delivery';
import { WebhookDeliverySchema } from '../../api/schemas/webhooks';
import { servedDocument } from '../../scripts/served-document';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * Each aggregate's fields are written once, in its schema (contracts/aggregates/). What is derived from it
 * must cover every field: the API view shows it (or the aggregate hides it on purpose), the served OpenAPI
 * component documents exactly the view, and its table has a column for it. A field added to a schema and
 * missed anywhere fails here. A new aggregate adds one entry.
 */
interface Aggregate {
  schema: z.ZodObject;
  view: z.ZodObject;
  /** Aggregate field → view key, for fields the view renames. */
  renamed: Record<string, string>;
  hidden: readonly string[];
  component: string;
  table: string;
  /** Fields that are not columns (held only by the workflow). */
  unstored?: readonly string[];
}

const AGGREGATES: Record<string, Aggregate> = {
  approval: {
    schema: ApprovalState,
    view: ApprovalSchema,
    renamed: { approval_id: 'id' },
    hidden: ['organization_id', 'version', 'requested_by'],
    component: 'ApprovalRequest',
    table: 'approvals',
  },
  execution: {
    schema: ExecutionState,
    view: ExecutionSchema,
    renamed: { execution_id: 'id' },
    hidden: ['version', 'requested_by'],
    component: 'Execution',
    table: 'executions',
  },
  delivery: {
    schema: DeliveryState,
    view: WebhookDeliverySchema,
    renamed: {},
    hidden: ['version'],
    component: 'WebhookDelivery',
    table: 'webhook_deliveries',
  },
};

type Document = { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

let database: TestDatabase;
let document: Document;
beforeAll(async () => {
  database = await createTestDatabase();
  document = (await servedDocument()) as Document;
});
afterAll(() => database?.destroy());

describe.each(Object.entries(AGGREGATES))('the %s aggregate', (_name, aggregate) => {
  const fields = Object.keys(aggregate.schema.shape);
  const shown = fields.filter((field) => !aggregate.hidden.includes(field));
  const viewKeys = shown.map((field) => aggregate.renamed[field] ?? field);

  it('hides only fields it has', () => {
    expect(fields).toEqual(expect.arrayContaining([...aggregate.hidden, ...Object.keys(aggregate.renamed)]));
  });

  it('has a view that shows every field it does not hide, in its order', () => {
    expect(Object.keys(aggregate.view.shape)).toEqual(viewKeys);
  });

  it('is documented by an OpenAPI component with exactly the view’s properties', () => {
    const component = document.components.schemas[aggregate.component];
    expect(Object.keys(component?.properties ?? {})).toEqual(viewKeys);
  });

  it('has a column for every field it stores', async () => {
    const columns = Object.keys(await database.db(aggregate.table).columnInfo());
    const stored = fields.filter((field) => !aggregate.unstored?.includes(field));
    expect(columns).toEqual(expect.arrayContaining(stored));
  });
});
