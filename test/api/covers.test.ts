import { createDb } from '../../db/connection';
import { eventually } from '../support/eventually';
import { client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const stack = useStack();
let admin: ReturnType<typeof client>;
let ada: SignedInPerson;
let bea: SignedInPerson;
let cal: SignedInPerson;
const as = (person: SignedInPerson) => client(stack.baseUrl, person.sessionToken);
const PAYER = 'did:web:acme.example:agents:payer';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  [ada, bea, cal] = await Promise.all([
    signedInPerson(stack, { name: 'Ada' }),
    signedInPerson(stack, { name: 'Bea' }),
    signedInPerson(stack, { name: 'Cal' }),
  ]);
});

async function requestFor(body: Record<string, unknown>) {
  const created = await admin('POST', '/v1/approvals', {
    json: {
      requester_passport_id: PAYER,
      action_description: 'Refund 900 EUR',
      request_data: { amount: 900 },
      ...body,
    },
  });
  expect(created.status).toBe(201);
  return created.body;
}

async function recordsOf(id: string): Promise<string[]> {
  const rows = await stack.database.db('ledger_entries').where({ subject_id: id }).select('body');
  return rows.map((row: { body: string }) => (JSON.parse(row.body) as { reasoning: string }).reasoning);
}

describe('cover while a reviewer is away', () => {
  it('hands a request naming Ada to Bea, says so in provenance, and lets only Bea answer', async () => {
    const cover = await as(ada)('POST', '/v1/covers', {
      json: { covering_did: bea.did, ends_at: inDays(14), reason: 'leave' },
    });
    expect(cover.status).toBe(201);
    expect(cover.body).toMatchObject({ covered_did: ada.did, covering_did: bea.did, reason: 'leave', ended_at: null });

    const request = await requestFor({ approver_passport_id: ada.did });
    expect(request).toMatchObject({ approver_passport_id: bea.did, covering_for: { [bea.did]: ada.did } });
    expect((await recordsOf(request.id)).join('\n')).toContain(`${bea.did}, covering for ${ada.did}`);

    expectProblem(
      await as(ada)('POST', `/v1/approvals/${request.id}/respond`, { json: { decision: 'approved' } }),
      403,
      'not_the_approver',
    );
    const answered = await as(bea)('POST', `/v1/approvals/${request.id}/respond`, { json: { decision: 'approved' } });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'approved', responded_by: bea.did });

    // Ended early: the next request names Ada again; the one opened under the cover kept Bea.
    const ended = await as(ada)('DELETE', `/v1/covers/${cover.body.cover_id}`);
    expect(ended.status).toBe(200);
    expect(ended.body.ended_at).toEqual(expect.any(String));
    expect(await requestFor({ approver_passport_id: ada.did })).toMatchObject({
      approver_passport_id: ada.did,
      covering_for: null,
    });
  });

  it('moves a quorum seat to the colleague, never to someone already on it or to the requester', async () => {
    await as(cal)('POST', '/v1/covers', { json: { covering_did: ada.did, ends_at: inDays(3) } });
    const request = await requestFor({ approvers: [ada.did, cal.did], required_approvals: 2 });
    // Ada holds a seat already, so Cal keeps theirs.
    expect(request).toMatchObject({ approvers: [ada.did, cal.did], covering_for: null });

    const requester = await signedInPerson(stack, { name: 'Dee' });
    await as(requester)('POST', '/v1/covers', { json: { covering_did: PAYER, ends_at: inDays(3) } });
    expect(await requestFor({ approver_passport_id: requester.did })).toMatchObject({
      approver_passport_id: requester.did,
      covering_for: null,
    });
  });

  it('applies a cover only inside its window', async () => {
    const later = await signedInPerson(stack, { name: 'Eve' });
    await as(later)('POST', '/v1/covers', {
      json: { covering_did: bea.did, starts_at: inDays(2), ends_at: inDays(5) },
    });
    expect(await requestFor({ approver_passport_id: later.did })).toMatchObject({ approver_passport_id: later.did });
  });
});

describe('covers held in memory while they are quiet', () => {
  it('opens without reading them, and applies another instance’s new cover once it is heard of', async () => {
    const fay = await signedInPerson(stack, { name: 'Fay' });
    // Past the window in which this instance's own writes to covers keep them read through (lib/notified-cache.ts).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await requestFor({ approver_passport_id: fay.did })).toMatchObject({ approver_passport_id: fay.did });
    const statements: string[] = [];
    const seen = (query: { sql: string }) => statements.push(query.sql);
    stack.database.db.on('query', seen);
    try {
      expect(await requestFor({ approver_passport_id: fay.did })).toMatchObject({ approver_passport_id: fay.did });
    } finally {
      stack.database.db.off('query', seen);
    }
    expect(statements.filter((sql) => sql.includes('covers'))).toEqual([]);

    const otherInstance = createDb({ connectionString: stack.database.url, poolMax: 1 });
    try {
      await otherInstance('covers').insert({
        cover_id: `cov_${fay.passport_id}`,
        organization_id: 'org_default',
        covered_did: fay.did,
        covering_did: bea.did,
        starts_at: new Date(Date.now() - 60_000),
        ends_at: new Date(inDays(1)),
        created_by: 'test',
        created_at: new Date(),
      });
    } finally {
      await otherInstance.destroy();
    }
    const covered = await eventually(
      () => requestFor({ approver_passport_id: fay.did }),
      (request) => request.approver_passport_id !== fay.did,
      { timeoutMs: 2_000, everyMs: 10 },
    );
    expect(covered).toMatchObject({ approver_passport_id: bea.did, covering_for: { [bea.did]: fay.did } });
  });
});

describe('who may set a cover', () => {
  it('refuses covering yourself, an end before the start, and a window too long, by field', async () => {
    const self = await as(ada)('POST', '/v1/covers', { json: { covering_did: ada.did, ends_at: inDays(1) } });
    expectProblem(self, 400, 'validation_failed');
    expect(self.body.errors).toEqual([expect.objectContaining({ field: 'covering_did', code: 'self_cover' })]);
    const backwards = await as(ada)('POST', '/v1/covers', {
      json: { covering_did: bea.did, starts_at: inDays(3), ends_at: inDays(2) },
    });
    expect(backwards.body.errors).toEqual([expect.objectContaining({ field: 'ends_at', code: 'end_before_start' })]);
    const long = await as(ada)('POST', '/v1/covers', { json: { covering_did: bea.did, ends_at: inDays(120) } });
    expect(long.body.errors).toEqual([expect.objectContaining({ code: 'too_long' })]);
  });

  it('lets a person set only their own cover, and an administrator anyone’s', async () => {
    expectProblem(
      await as(bea)('POST', '/v1/covers', {
        json: { covered_did: ada.did, covering_did: bea.did, ends_at: inDays(1) },
      }),
      403,
      'cover_not_yours',
    );
    // A token that is no person names nobody by default.
    const machine = client(stack.baseUrl, await stack.token(['platform:write'], 'robot'));
    expectProblem(
      await machine('POST', '/v1/covers', { json: { covering_did: bea.did, ends_at: inDays(1) } }),
      403,
      'person_required',
    );
    const byAdmin = await admin('POST', '/v1/covers', {
      json: { covered_did: cal.did, covering_did: bea.did, ends_at: inDays(1) },
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body.created_by).toBe('sub:test-user');
    // Bea may not end a cover that is Cal's; Cal may.
    expectProblem(await as(bea)('DELETE', `/v1/covers/${byAdmin.body.cover_id}`), 403, 'cover_not_yours');
    expect((await as(cal)('DELETE', `/v1/covers/${byAdmin.body.cover_id}`)).status).toBe(200);
  });

  it('lists a person’s own covers only, and every cover to an administrator', async () => {
    const own = await as(bea)('GET', '/v1/covers');
    expect(own.status).toBe(200);
    for (const item of own.body.data) expect([item.covered_did, item.covering_did]).toContain(bea.did);
    expectProblem(await as(bea)('GET', `/v1/covers?party=${encodeURIComponent(cal.did)}`), 403, 'cover_not_yours');
    const all = await admin('GET', '/v1/covers?limit=2');
    expect(all.body).toMatchObject({ has_more: true, total_count: expect.any(Number) });
    const next = await admin('GET', `/v1/covers?limit=2&cursor=${all.body.next_cursor}`);
    expect(next.body.data.map((item: { cover_id: string }) => item.cover_id)).not.toContain(all.body.data[0].cover_id);
  });
});
