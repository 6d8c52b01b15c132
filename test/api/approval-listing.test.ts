import { call, client } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

/*
 * Who lists which approval requests: ?approver= finds a quorum request by any of its approvers, a signed-in
 * person lists only the requests naming them, and the inbox holds a quorum request for its approvers (until
 * they have voted) and for nobody else.
 */

const stack = useStack();
let admin: ReturnType<typeof client>;
let ada: SignedInPerson;
let bea: SignedInPerson;
let cal: SignedInPerson;
let outsider: SignedInPerson;
const as = (person: SignedInPerson) => client(stack.baseUrl, person.sessionToken);
const PAYER = 'did:web:acme.example:agents:payer';

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  [ada, bea, cal, outsider] = await Promise.all([
    signedInPerson(stack, { name: 'Ada' }),
    signedInPerson(stack, { name: 'Bea' }),
    signedInPerson(stack, { name: 'Cal' }),
    signedInPerson(stack, { name: 'Dee' }),
  ]);
});

async function request(body: Record<string, unknown>, by = admin): Promise<string> {
  const created = await by('POST', '/v1/approvals', {
    json: { requester_passport_id: PAYER, action_description: 'Wire 250,000 EUR to Globex', ...body },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const quorumOf = (...people: SignedInPerson[]) => ({ approvers: people.map((p) => p.did), required_approvals: 2 });
const idsOf = (reply: { body: { data: Array<{ id: string }> } }) => reply.body.data.map((row) => row.id);

describe('listing approval requests', () => {
  it('finds a quorum request by any of its approvers with ?approver=', async () => {
    const id = await request(quorumOf(ada, bea, cal));
    const byBea = await admin('GET', `/v1/approvals?approver=${encodeURIComponent(bea.did)}&limit=100`);
    expect(byBea.status).toBe(200);
    expect(idsOf(byBea)).toContain(id);
    const byOutsider = await admin('GET', `/v1/approvals?approver=${encodeURIComponent(outsider.did)}&limit=100`);
    expect(idsOf(byOutsider)).not.toContain(id);
  });

  it('shows a signed-in person only the requests naming them; an administrator all of them', async () => {
    const quorum = await request(quorumOf(ada, bea, cal));
    const single = await request({ approver_passport_id: bea.did });
    const asked = await request({ requester_passport_id: bea.did, approver_passport_id: cal.did });
    const notHers = await request({ approver_passport_id: cal.did });

    const hers = idsOf(await as(bea)('GET', '/v1/approvals?limit=100'));
    expect(hers).toEqual(expect.arrayContaining([quorum, single, asked]));
    expect(hers).not.toContain(notHers);
    // A filter for someone else does not widen it.
    const filtered = idsOf(await as(bea)('GET', `/v1/approvals?limit=100&approver=${encodeURIComponent(cal.did)}`));
    expect(filtered).toContain(asked);
    expect(filtered).not.toContain(notHers);
    expect(idsOf(await as(outsider)('GET', '/v1/approvals?limit=100'))).toEqual(
      expect.not.arrayContaining([quorum, single, asked, notHers]),
    );
    expect(idsOf(await admin('GET', '/v1/approvals?limit=100'))).toEqual(
      expect.arrayContaining([quorum, single, asked, notHers]),
    );
  });

  it('reads a request by id only for the people it names, as the list does; anyone else gets 404', async () => {
    const quorum = await request(quorumOf(ada, bea, cal));
    const single = await request({ approver_passport_id: bea.did });
    const asked = await request({ requester_passport_id: outsider.did, approver_passport_id: cal.did });
    const read = (person: SignedInPerson, id: string) => as(person)('GET', `/v1/approvals/${id}`);

    for (const [person, id] of [
      [ada, quorum],
      [bea, quorum],
      [bea, single],
      [outsider, asked],
      [cal, asked],
    ] as const) {
      const found = await read(person, id);
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(id);
    }
    for (const [person, id] of [
      [outsider, quorum],
      [ada, single],
      [bea, asked],
    ] as const) {
      const hidden = await read(person, id);
      expect(hidden.status).toBe(404);
      expect(hidden.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(hidden.body.type).toMatch(/approval_not_found/);
    }
    // Unknown and hidden answer alike, and the wait does not widen it.
    const unknown = await read(bea, 'apr_never-made');
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe((await read(ada, single)).body.type);
    expect((await as(ada)('GET', `/v1/approvals/${single}?wait=1`)).status).toBe(404);
    // An administrator's or a service's credential reads all of the organization's.
    const service = client(stack.baseUrl, await stack.token(['platform:read']));
    for (const id of [quorum, single, asked]) {
      expect((await admin('GET', `/v1/approvals/${id}`)).status).toBe(200);
      expect((await service('GET', `/v1/approvals/${id}`)).status).toBe(200);
    }
  });

  it('never shows another organization’s requests, even one naming the person', async () => {
    const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: await stack.token(['cloud:admin:global'], 'operator'),
      json: { org_did: 'did:web:listing-beta.example', name: 'Listing Beta' },
    });
    expect(created.status).toBe(201);
    const other = await signedInPerson(stack, { name: 'Eve', organization_id: created.body.organization_id });
    const ours = await request({ approvers: [other.did, ada.did], required_approvals: 1 });
    const listed = await as(other)('GET', '/v1/approvals?limit=100');
    expect(listed.status).toBe(200);
    expect(idsOf(listed)).not.toContain(ours);
    expect((await as(other)('GET', `/v1/approvals/${ours}`)).status).toBe(404);
    expect((await as(other)('GET', '/v1/inbox/items')).body.data).toEqual([]);
  });
});

describe('a quorum request in the inbox', () => {
  it('is in each named approver’s queue until they vote, and in nobody else’s', async () => {
    const id = await request(quorumOf(ada, bea, cal));
    const inboxOf = async (person: SignedInPerson) =>
      ((await as(person)('GET', '/v1/inbox/items')).body.data as Array<{ item_id: string; kind: string }>).filter(
        (item) => item.item_id === id,
      );
    expect(await inboxOf(bea)).toEqual([expect.objectContaining({ kind: 'approval' })]);
    expect(await inboxOf(outsider)).toEqual([]);

    const voted = await as(bea)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved' } });
    expect(voted.status).toBe(200);
    expect(voted.body.status).toBe('pending');
    expect(await inboxOf(bea)).toEqual([]);
    expect(await inboxOf(cal)).toEqual([expect.objectContaining({ kind: 'approval' })]);
  });
});
