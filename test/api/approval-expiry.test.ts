import { eventually } from '../support/eventually';
import { client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const stack = useStack();
let api: ReturnType<typeof client>;
let ada: SignedInPerson;
let bea: SignedInPerson;
const as = (person: SignedInPerson) => client(stack.baseUrl, person.sessionToken);

beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token());
  [ada, bea] = await Promise.all([signedInPerson(stack, { name: 'Ada' }), signedInPerson(stack, { name: 'Bea' })]);
});

async function open(body: Record<string, unknown>): Promise<string> {
  const created = await api('POST', '/v1/approvals', {
    json: {
      requester_passport_id: 'did:web:acme.example:agents:payer',
      approver_passport_id: ada.did,
      action_description: 'Refund order 7',
      expires_in_seconds: 2,
      ...body,
    },
  });
  expect(created.status).toBe(201);
  expect(created.body.on_expiry).toBe(body.on_expiry ?? 'reject');
  return created.body.id;
}

const afterDeadline = (id: string) =>
  eventually(
    () => api('GET', `/v1/approvals/${id}`),
    (reply) => reply.body.expiry_outcome !== null,
  );

const eventsOf = (id: string) =>
  stack.database.db('outbox_events').whereRaw("data->>'approval_id' = ?", [id]).orderBy('created_at');

describe('what the deadline does, as the request chose', () => {
  it('states a rejection by expiry in the request and its event, never as a human’s “rejected”', async () => {
    const id = await open({});
    const expired = await afterDeadline(id);
    expect(expired.body).toMatchObject({ status: 'expired', on_expiry: 'reject', expiry_outcome: 'rejected' });
    const [event] = (await eventsOf(id)).filter((e: { event: string }) => e.event === 'approval.expired');
    expect(event.data).toMatchObject({ status: 'expired', on_expiry: 'reject', expiry_outcome: 'rejected' });
  });

  it('holds the request open past its deadline, and the approver still answers it', async () => {
    const id = await open({ on_expiry: 'hold' });
    const held = await afterDeadline(id);
    expect(held.body).toMatchObject({ status: 'pending', expiry_outcome: 'held' });
    expect(Date.parse(held.body.expires_at)).toBeLessThan(Date.now());
    const answered = await as(ada)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'approved', responded_by: ada.did, expiry_outcome: 'held' });
    expect((await eventsOf(id)).map((e: { event: string }) => e.event)).toEqual([
      'approval.requested',
      'approval.expired',
      'approval.approved',
    ]);
  });

  it('escalates to the next approver with a new deadline; only they may answer then', async () => {
    const id = await open({ on_expiry: 'escalate', escalate_to: [bea.did], expires_in_seconds: 6 });
    const escalated = await afterDeadline(id);
    expect(escalated.body).toMatchObject({
      status: 'pending',
      approver_passport_id: bea.did,
      escalation_level: 1,
      expiry_outcome: 'escalated',
    });
    expect(Date.parse(escalated.body.expires_at)).toBeGreaterThan(Date.now());
    expectProblem(
      await as(ada)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'not_the_approver',
    );
    const answered = await as(bea)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'reject' } });
    expect(answered.body).toMatchObject({ status: 'rejected', responded_by: bea.did });
  });

  it('approves at the deadline when asked to, by no human', async () => {
    const id = await open({ on_expiry: 'approve' });
    const approved = await eventually(
      () => api('GET', `/v1/approvals/${id}`),
      (reply) => reply.body.status !== 'pending',
    );
    expect(approved.body).toMatchObject({ status: 'approved', expiry_outcome: 'approved' });
  });

  it.each([
    ['escalate without whom to', { on_expiry: 'escalate' }, 'escalate_to'],
    ['escalate_to without escalate', { escalate_to: ['did:web:acme.example:people:cal'] }, 'escalate_to'],
    ['an unknown action', { on_expiry: 'ignore' }, 'on_expiry'],
  ])('refuses %s', async (_name, body, field) => {
    const created = await api('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:acme.example:agents:payer',
        approver_passport_id: ada.did,
        action_description: 'Refund order 7',
        ...body,
      },
    });
    expectProblem(created, 400, 'validation_failed');
    expect(created.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });
});
