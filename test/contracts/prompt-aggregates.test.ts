import type { z } from 'zod';
import { Prompt, PromptVersion } from '../../contracts/aggregates/prompt';
import { ReasoningAttempt, ReasoningCall } from '../../contracts/aggregates/reasoning-call';
import { PromptSchema, PromptVersionSchema, promptView, versionView } from '../../api/schemas/prompts';
import { servedDocument } from '../../scripts/served-document';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The prompt registry's aggregates (a prompt, a published version) and the reasoning call (with its attempts)
 * are held as their rows. A prompt's views add its URI and show times as ISO 8601, so they are typed against
 * the schema rather than derived with viewOf: what holds here is that each table stores every field, and each
 * view shows every field it does not hide, in the schema's order, after the fields it adds; its mapper's
 * answer fits it; the served OpenAPI component documents exactly the view. A field added to a schema and
 * missed anywhere fails here. The reasoning call has no view of its own (the answer reports its id).
 */
interface RowAggregate {
  schema: z.ZodObject;
  table: string;
  view?: {
    schema: z.ZodObject;
    component: string;
    /** Fields the view computes, shown before the aggregate's. */
    added: readonly string[];
    renamed: Record<string, string>;
    hidden: readonly string[];
    /** The view of a sample value. */
    sample: () => unknown;
  };
}

const created = new Date('2026-01-02T03:04:05.000Z');

const AGGREGATES: Record<string, RowAggregate> = {
  prompt: {
    schema: Prompt,
    table: 'prompts',
    view: {
      schema: PromptSchema,
      component: 'Prompt',
      added: ['prompt_uri'],
      renamed: { organization_id: 'org_id' },
      hidden: [],
      sample: () =>
        promptView({
          prompt_key: 'support.triage',
          organization_id: 'org_1',
          scope: null,
          namespace: 'support',
          active_version: '1.0.0',
          created_at: created,
          updated_at: created,
        }),
    },
  },
  'prompt version': {
    schema: PromptVersion,
    table: 'prompt_versions',
    view: {
      schema: PromptVersionSchema,
      component: 'PromptVersion',
      added: ['prompt_uri'],
      renamed: { organization_id: 'org_id' },
      hidden: ['version_sort', 'deprecated_by'],
      sample: () =>
        versionView({
          prompt_key: 'support.triage',
          organization_id: 'org_1',
          version: '1.0.0',
          version_sort: '0000000001.0000000000.0000000000',
          content: 'Triage {{ticket}}',
          meta: { namespace: 'support' },
          input_schema: null,
          extends_uri: null,
          published_by: 'usr_1',
          published_at: created,
          status: 'deprecated',
          deprecated_at: created,
          deprecated_by: 'usr_1',
        }),
    },
  },
  'reasoning call': { schema: ReasoningCall, table: 'reasoning_calls' },
  'reasoning attempt': { schema: ReasoningAttempt, table: 'reasoning_attempts' },
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

  it('has a column for every field', async () => {
    const columns = Object.keys(await database.db(aggregate.table).columnInfo());
    expect(columns).toEqual(expect.arrayContaining(fields));
  });

  const view = aggregate.view;
  if (!view) return;
  const viewKeys = [
    ...view.added,
    ...fields.filter((field) => !view.hidden.includes(field)).map((field) => view.renamed[field] ?? field),
  ];

  it('hides only fields it has', () => {
    expect(fields).toEqual(expect.arrayContaining([...view.hidden, ...Object.keys(view.renamed)]));
  });

  it('has a view that shows every field it does not hide, in its order, after the fields it adds', () => {
    expect(Object.keys(view.schema.shape)).toEqual(viewKeys);
  });

  it('has a mapper whose answer fits the view', () => {
    expect(view.schema.strict().parse(view.sample())).toEqual(view.sample());
  });

  it('is documented by an OpenAPI component with exactly the view’s properties', () => {
    const component = document.components.schemas[view.component];
    expect(Object.keys(component?.properties ?? {})).toEqual(viewKeys);
  });
});
