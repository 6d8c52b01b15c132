import type { z } from 'zod';
import { Delegation } from '../../contracts/aggregates/delegation';
import { Passport } from '../../contracts/aggregates/passport';
import { PassportSchema } from '../../api/schemas/passports';
import { servedDocument } from '../../scripts/served-document';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The identity aggregates (passport, delegation) are held as their rows; their API views are joins (a Passport
 * with its owner's DID and its keys; a delegation with its token, status or revocation), so they are not derived
 * with viewOf and do not fit test/contracts/aggregates.test.ts. What holds here: the table stores every field,
 * and the Passport view shows every field it does not hide, in the schema's order, among the fields it joins.
 */
interface IdentityAggregate {
  schema: z.ZodObject;
  table: string;
  view?: { schema: z.ZodObject; component: string; renamed: Record<string, string>; hidden: readonly string[] };
}

const AGGREGATES: Record<string, IdentityAggregate> = {
  passport: {
    schema: Passport,
    table: 'passports',
    view: {
      schema: PassportSchema,
      component: 'Passport',
      renamed: { passport_id: 'id', created_at: 'createdAt', organization_id: 'organizationId' },
      hidden: ['updated_at'],
    },
  },
  delegation: { schema: Delegation, table: 'delegations' },
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
  const viewKeys = fields.filter((field) => !view.hidden.includes(field)).map((field) => view.renamed[field] ?? field);
  const inOrder = (keys: string[]) => keys.filter((key) => viewKeys.includes(key));

  it('has a view that shows every field it does not hide, in its order', () => {
    expect(inOrder(Object.keys(view.schema.shape))).toEqual(viewKeys);
  });

  it('is documented by an OpenAPI component with the view’s properties', () => {
    const component = document.components.schemas[view.component];
    expect(Object.keys(component?.properties ?? {})).toEqual(Object.keys(view.schema.shape));
  });
});
