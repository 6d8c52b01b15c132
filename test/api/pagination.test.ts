import { call, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

let reader: string;
let admin: string;

const stack = useStack();
beforeAll(async () => {
  [reader, admin] = await Promise.all([stack.token(['orch:read']), stack.token(['orch:admin'])]);
});

interface Reviewer {
  did: string;
  chain_level: number;
  created_at: string;
}
interface Page {
  data: Reviewer[];
  has_more: boolean;
  next_cursor: string | null;
  total_count: number;
}

const list = (query: string) => call(stack.baseUrl, 'GET', `/v1/orch/reviewers?${query}`, { token: reader });
const putReviewer = async (did: string, chainLevel: number, extra: Record<string, unknown> = {}) => {
  const reply = await call(stack.baseUrl, 'PUT', `/v1/orch/reviewers/${did}`, {
    token: admin,
    json: { display_name: did, chain_level: chainLevel, ...extra },
  });
  expect(reply.status).toBe(204);
};
const allDids = async () => (await stack.database.db<{ did: string }>('reviewers').select('did')).map((row) => row.did);

/** Follows next_cursor to the end (bounded, so a cursor that never advances fails instead of looping). */
async function walk(
  query: string,
  between?: (pageNumber: number) => Promise<void>,
): Promise<{ pages: Page[]; rows: Reviewer[] }> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const reply = await list(`${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(reply.status).toBe(200);
    pages.push(reply.body);
    cursor = reply.body.next_cursor;
    if (between) await between(pages.length);
  } while (cursor && pages.length < 50);
  expect(cursor).toBeNull();
  return { pages, rows: pages.flatMap((page) => page.data) };
}

describe('cursor pagination on GET /v1/orch/reviewers', () => {
  it('pages with limit, next_cursor, has_more and total_count', async () => {
    const total = (await allDids()).length;
    const first = await list('limit=3');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String), total_count: total });
    expect(first.body.data).toHaveLength(3);
    expect(Object.keys(first.body.data[0]).sort()).toEqual([
      'available',
      'capabilities',
      'capacity',
      'chain_level',
      'created_at',
      'did',
      'display_name',
      'email',
      'open_assignments',
      'passport_id',
      'slack_user_id',
      'updated_at',
    ]);

    const { pages, rows } = await walk('limit=3');
    expect(rows).toHaveLength(total);
    expect(pages.at(-1)).toMatchObject({ has_more: false, next_cursor: null, total_count: total });
    expect(pages.slice(0, -1).every((page) => page.has_more && page.data.length === 3)).toBe(true);
  });

  it('returns every row exactly once while rows are inserted between page fetches', async () => {
    for (let i = 0; i < 6; i += 1) await putReviewer(`did:web:example.com:reviewers:m${i}`, 1 + (i % 3));
    const before = await allDids();

    const { rows } = await walk('limit=3', async (pageNumber) => {
      // One row sorting before everything already returned, one after: neither may shift the pages.
      await putReviewer(`did:web:aaa.example:early${pageNumber}`, 1);
      await putReviewer(`did:web:zzz.example:late${pageNumber}`, 20);
    });
    const seen = rows.map((row) => row.did);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(before));
    // Ordered by chain_level then did, as promised.
    const keys = rows.map((row) => [row.chain_level, row.did] as const);
    expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1)));
  });

  it('sorts descending with sort=-chain_level across pages', async () => {
    const total = (await allDids()).length;
    const { rows } = await walk('limit=4&sort=-chain_level');
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((row) => row.did)).size).toBe(total);
    const levels = rows.map((row) => row.chain_level);
    expect(levels).toEqual([...levels].sort((a, b) => b - a));
    expect(levels[0]).toBe(20);
  });

  it('walks sort=created_at without repeating rows created in the same instant', async () => {
    // The dev seed inserts its reviewers in one statement: they share created_at to the microsecond.
    const total = (await allDids()).length;
    const { rows } = await walk('limit=1&sort=created_at');
    expect(rows.map((row) => row.did).sort()).toEqual((await allDids()).sort());
    expect(rows).toHaveLength(total);
  });

  it('filters by availability and capability and counts only the matching rows', async () => {
    await putReviewer('did:web:example.com:reviewers:away', 1, { available: false, capabilities: { tax_law: 0.7 } });
    const away = await list('available=false');
    expect(away.body.total_count).toBe(
      await stack.database
        .db('reviewers')
        .where({ available: false })
        .count<{ count: number }[]>({ count: '*' })
        .then((r) => r[0]!.count),
    );
    expect(away.body.data.every((row: { available: boolean }) => !row.available)).toBe(true);
    const taxLaw = await list('capability=tax_law');
    expect(taxLaw.body).toMatchObject({
      total_count: 1,
      has_more: false,
      data: [expect.objectContaining({ did: 'did:web:example.com:reviewers:away' })],
    });
  });

  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  it.each([
    ['not base64 JSON', 'this-is-not-a-cursor'],
    ['JSON of the wrong shape', encode({ hello: 'world' })],
    ['values of the wrong type for the columns', encode({ s: 'chain_level,did', v: ['abc', 'did:web:x'] })],
    ['values that are objects', encode({ s: 'chain_level,did', v: [{ gt: 1 }, 'did:web:x'] })],
  ])('answers 400 invalid_cursor for a forged cursor: %s', async (_name, cursor) => {
    const reply = await list(`cursor=${cursor}`);
    expectProblem(reply, 400, 'invalid_cursor');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field: 'query.cursor', code: 'invalid_cursor' })]);
  });

  it('answers 400 invalid_cursor for a cursor reused with a different sort', async () => {
    const first = await list('limit=2&sort=-chain_level');
    const reused = await list(`limit=2&sort=did&cursor=${first.body.next_cursor}`);
    expectProblem(reused, 400, 'invalid_cursor');
  });

  it.each(['0', '101', '-1', 'ten'])('answers 400 for limit=%s', async (limit) => {
    const reply = await list(`limit=${limit}`);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field: 'query.limit' })]);
  });

  it('accepts limit=100 and defaults to 20', async () => {
    expect((await list('limit=100')).status).toBe(200);
    const total = (await allDids()).length;
    expect((await list('')).body.data).toHaveLength(Math.min(20, total));
  });

  it('answers 400 naming the sortable fields for an unknown sort field', async () => {
    const reply = await list('sort=display_name');
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ field: 'query.sort', message: expect.stringContaining('chain_level') }),
    ]);
  });

  it.each(['toString', '-constructor', '__proto__', 'hasOwnProperty'])(
    'answers 400 for sort=%s, a name every object has but no sortable field is',
    async (sort) => {
      expectProblem(await list(`sort=${sort}`), 400, 'validation_failed');
    },
  );
});
