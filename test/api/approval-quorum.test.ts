import { eventually } from '../support/eventually';
import { client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const stack = useStack();
let api: ReturnType<typeof client>;
let ada: SignedInPerson;
let bea: SignedInPerson;
let cal: SignedInPerson;
let outsider: SignedInPerson;
const as = (person: SignedInPerson) => client(stack.baseUrl, person.sessionToken);

beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token());
  [ada, bea, cal, outsider] = await Promise.all([
    signedInPerson(stack, { name: 'Ada' }),
    signedInPerson(stack, { name: 'Bea' }),
    signedInPerson(stack, { name: 'Cal' }),
    signedInPerson(stack, { name: 'Dee' }),
  ]);
});

const PAYER = 'did:web:acme.example:agents:payer';

async function quorumRequest(body: Record<string, unknown> = {}): Promise<string> {
  const created = await api('POST', '/v1/approvals', {
    json: {
      requester_passport_id: PAYER,
      approvers: [ada.did, bea.did, cal.did],
      required_approvals: 2,
      action_description: 'Wire 250,000 EUR to Globex',
      request_data: { amount: 250_000, currency: 'EUR' },
      ...body,
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function recordsOf(
  id: string,
): Promise<{ step_id: string; action: string; reasoning: string; transaction_id: string }[]> {
  const rows = await stack.database
    .db('ledger_entries')
    .where({ subject_id: id })
    .orderBy('recorded_at')
    .select('step_id', 'action', 'body', 'transaction_id');
  return rows.map((row: { step_id: string; action: string; body: string; transaction_id: string }) => ({
    ...row,
    reasoning: (JSON.parse(row.body) as { reasoning: string }).reasoning,
  }));
}

describe('a 2-of-3 quorum over HTTP', () => {
  it('stays pending after one approval, approves at the second, records every vote and refuses a second vote', async () => {
    const id = await quorumRequest();
    const opened = await api('GET', `/v1/approvals/${id}`);
    expect(opened.body).toMatchObject({
      status: 'pending',
      approvers: [ada.did, bea.did, cal.did],
      required_approvals: 2,
      votes: [],
      approvals_needed: 2,
      on_expiry: 'reject',
    });

    const first = await as(ada)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', comment: 'fine by me' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending', approvals_needed: 1, responded_by: null });
    expect(first.body.votes).toEqual([
      expect.objectContaining({ approver: ada.did, passport_id: ada.passport_id, decision: 'approved' }),
    ]);

    const twice = await as(ada)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } });
    expectProblem(twice, 409, 'already_voted');
    expect(twice.body.detail).toContain('already voted approved');

    const second = await as(bea)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'approved', approvals_needed: 0, responded_by: bea.did });
    expect(second.body.votes.map((vote: { approver: string }) => vote.approver)).toEqual([ada.did, bea.did]);

    const late = await as(cal)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'reject' } });
    expectProblem(late, 409, 'approval_not_pending');

    const records = await recordsOf(id);
    expect(records.map((r) => [r.step_id, r.action])).toEqual([
      ['requested', 'approval_requested'],
      [`vote:${ada.passport_id}`, 'approval_vote_approved'],
      ['responded', 'approval_approved'],
    ]);
    expect(records[0]!.reasoning).toContain(`2 of ${ada.did}`);
    expect(records[2]!.reasoning).toContain('approved (2 of 3 needed, 0 more to approve)');
    // Each vote names the transaction of its own record.
    expect(second.body.votes.map((vote: { provenance_id: string }) => vote.provenance_id)).toEqual(
      records.slice(1).map((r) => r.transaction_id),
    );

    const events = await eventually(
      () =>
        stack.database
          .db('outbox_events')
          .whereRaw("data->>'approval_id' = ?", [id])
          .orderBy('created_at')
          .pluck('event'),
      (kinds: string[]) => kinds.length === 3,
    );
    expect(events).toEqual(['approval.requested', 'approval.voted', 'approval.approved']);
  });

  it('survives one rejection and is rejected at the second, once two approvals are out of reach', async () => {
    const id = await quorumRequest();
    const no = await as(ada)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'reject', reason: 'too much' },
    });
    expect(no.body).toMatchObject({ status: 'pending', approvals_needed: 2 });
    const yes = await as(bea)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } });
    expect(yes.body).toMatchObject({ status: 'pending', approvals_needed: 1 });
    const decisive = await as(cal)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'reject' } });
    expect(decisive.body).toMatchObject({ status: 'rejected', responded_by: cal.did, approvals_needed: 1 });
    expect(decisive.body.votes.map((vote: { decision: string }) => vote.decision)).toEqual([
      'rejected',
      'approved',
      'rejected',
    ]);
  });

  it('takes exactly one of the same person’s concurrent votes', async () => {
    const id = await quorumRequest();
    const replies = await Promise.all(
      Array.from({ length: 4 }, () =>
        as(ada)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200)) expectProblem(reply, 409, 'already_voted');
    expect((await api('GET', `/v1/approvals/${id}`)).body.votes).toHaveLength(1);
  });

  it('refuses a person who holds no seat, and modified parameters on a vote', async () => {
    const id = await quorumRequest();
    expectProblem(
      await as(outsider)('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'not_the_approver',
    );
    const modified = await as(ada)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', modified_params: { amount: 1 } },
    });
    expectProblem(modified, 400, 'validation_failed');
    expect((await api('GET', `/v1/approvals/${id}`)).body.votes).toEqual([]);
  });

  it.each([
    ['the requester among the approvers', { approvers: [PAYER, 'did:web:acme.example:people:bea'] }, 'approvers'],
    ['the same person twice', { approvers: ['did:web:a.example:x', 'did:web:a.example:x'] }, 'approvers'],
    ['more approvals than approvers', { required_approvals: 4 }, 'required_approvals'],
    ['a single approver beside approvers', { approver_passport_id: 'did:web:a.example:y' }, 'approver_passport_id'],
  ])('refuses a quorum with %s', async (_name, body, field) => {
    const created = await api('POST', '/v1/approvals', {
      json: {
        requester_passport_id: PAYER,
        approvers: [ada.did, bea.did, cal.did],
        required_approvals: 2,
        action_description: 'Wire money',
        ...body,
      },
    });
    expectProblem(created, 400, 'validation_failed');
    expect(created.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('never counts the requester: a person who asked holds no seat even when named by another request', async () => {
    const asker = await signedInPerson(stack, { name: 'Asker' });
    const created = await as(asker)('POST', '/v1/approvals', {
      json: {
        requester_passport_id: asker.did,
        approvers: [ada.did, bea.did],
        required_approvals: 1,
        action_description: 'Buy a laptop',
      },
    });
    expect(created.status).toBe(201);
    const own = await as(asker)('POST', `/v1/approvals/${created.body.id}/respond`, { json: { decision: 'approve' } });
    expect(own.status).toBe(403);
  });
});
