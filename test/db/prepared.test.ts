import { preparedQuery, preparedRows } from '../../db/prepared';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

describe('preparedRows (named bindings, as knex raw reads them)', () => {
  const SQL = `select :a::int + :b::int as sum, :a::text as again, '{1}'::int[] as casted, :list::text[] as list`;

  it('binds each name where it appears, leaves casts alone, and gives the same rows at every call', async () => {
    for (const [a, b] of [
      [1, 2],
      [40, 2],
    ] as const)
      expect(await preparedRows(database.db, SQL, { a, b, list: ['x', 'y'] })).toEqual([
        { sum: a + b, again: String(a), casted: [1], list: ['x', 'y'] },
      ]);
  });

  it('refuses an undefined binding, as knex does, rather than send null', async () => {
    await expect(preparedRows(database.db, SQL, { a: 1, b: undefined, list: [] })).rejects.toThrow(/Undefined binding/);
  });

  it('leaves what it does not rewrite itself (an identifier binding) to knex', async () => {
    expect(await preparedRows(database.db, 'select :value::int as :column:', { value: 7, column: 'seven' })).toEqual([
      { seven: 7 },
    ]);
  });
});

describe('preparedQuery (? placeholders)', () => {
  it('numbers the placeholders in order and gives the same rows at every call', async () => {
    for (const [a, b] of [
      ['x', 'y'],
      ['p', 'q'],
    ] as const)
      expect(await preparedQuery(database.db, 'select ?::text || ?::text as joined', [a, b])).toEqual([
        { joined: `${a}${b}` },
      ]);
  });

  it('refuses an undefined binding, within a jsonb value too', async () => {
    await expect(preparedQuery(database.db, 'select ?::jsonb as value', [{ a: undefined }])).rejects.toThrow(
      /Undefined binding/,
    );
  });
});
