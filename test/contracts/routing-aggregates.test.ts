import type { z } from 'zod';
import { RoutingState } from '../../contracts/aggregates/routing';
import { Task } from '../../contracts/aggregates/task';
import { RoutingStatusSchema } from '../../api/schemas/routing';
import { TaskSchema } from '../../api/schemas/tasks';
import { servedDocument } from '../../scripts/served-document';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The routing and the task have one schema each (contracts/aggregates/), but their API views are computed (a
 * routing's progress and expected completion) or joined (a task with where its routing stands), so they are
 * written beside the schema and typed against it rather than derived with viewOf. What holds here, as in
 * test/contracts/aggregates.test.ts: the view shows every field the aggregate does not hide, in its order,
 * among the fields it adds; the served OpenAPI component documents exactly the view; the table has a column
 * for every field. A field added to a schema and missed anywhere fails here.
 */
interface Aggregate {
  schema: z.ZodObject;
  view: z.ZodObject;
  /** Aggregate field → view key, for fields the view renames. */
  renamed: Record<string, string>;
  hidden: readonly string[];
  component: string;
  table: string;
}

const AGGREGATES: Record<string, Aggregate> = {
  routing: {
    schema: RoutingState,
    view: RoutingStatusSchema,
    renamed: {},
    // The status view shows where the routing stands; the decision's details are in its record and its history.
    hidden: [
      'version',
      'task_type',
      'ai_agent_id',
      'ai_confidence',
      'risk_level',
      'estimated_response_time',
      'decision_result',
      'domain',
      'routing_mode',
      'fourth_law_triggered',
      'safety_violation_count',
      'rules_triggered',
      'escalated_at',
      'updated_at',
    ],
    component: 'RoutingStatus',
    table: 'routings',
  },
  task: {
    schema: Task,
    view: TaskSchema,
    renamed: {},
    hidden: ['organization_id', 'request'],
    component: 'Task',
    table: 'platform_tasks',
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
  const inOrder = (keys: string[]) => keys.filter((key) => viewKeys.includes(key));

  it('hides only fields it has', () => {
    expect(fields).toEqual(expect.arrayContaining([...aggregate.hidden, ...Object.keys(aggregate.renamed)]));
  });

  it('has a view that shows every field it does not hide, in its order', () => {
    expect(inOrder(Object.keys(aggregate.view.shape))).toEqual(viewKeys);
  });

  it('is documented by an OpenAPI component with exactly the view’s properties', () => {
    const component = document.components.schemas[aggregate.component];
    expect(Object.keys(component?.properties ?? {})).toEqual(Object.keys(aggregate.view.shape));
  });

  it('has a column for every field', async () => {
    const columns = Object.keys(await database.db(aggregate.table).columnInfo());
    expect(columns).toEqual(expect.arrayContaining(fields));
  });
});
