import { verifyStoredLedger } from '../../services/ledger/export';
import { eventually } from '../support/eventually';
import { client, expectProblem, type CallResult } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

let api: ReturnType<typeof client>;
/** The approver, signed in: who answers (and cancels) the requests the agent's token creates. */
let asCfo: ReturnType<typeof client>;
let CFO: string;

const stack = useStack();
beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token());
  const cfo = await signedInPerson(stack, { name: 'CFO' });
  CFO = cfo.did;
  asCfo = client(stack.baseUrl, cfo.sessionToken);
});

const PAYER = 'did:web:acme.example:agents:payer';
const ACME = 'did:web:acme.example';

function create(body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<CallResult> {
  return api('POST', '/v1/approvals', {
    json: {
      org_did: ACME,
      agent_id: 'agent://acme/payer@1.0.0',
      requester_passport_id: PAYER,
      approver_passport_id: CFO,
      action_description: 'Pay invoice 42 to Globex',
      request_data: { amount: 25_000, currency: 'EUR', payee: 'Globex' },
      ...body,
    },
    headers,
  });
}

async function pending(body: Record<string, unknown> = {}): Promise<string> {
  const created = await create(body);
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('POST /v1/approvals', () => {
  it('creates a pending request, recorded in the ledger with its event, with risk evaluated from request_data', async () => {
    const reply = await create();
    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`/v1/approvals/${reply.body.id}`);
    expect(reply.body).toMatchObject({
      id: expect.stringMatching(/^apr_/),
      status: 'pending',
      org_did: ACME,
      requester_passport_id: PAYER,
      approver_passport_id: CFO,
      risk_level: 'high',
      risk_factors: [{ factor: 'amount_at_least:10000', severity: 'high' }],
      request_data: { amount: 25_000, currency: 'EUR', payee: 'Globex' },
      alternatives: [],
      responded_by: null,
      provenance_id: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const lifetime = Date.parse(reply.body.expires_at) - Date.parse(reply.body.created_at);
    expect(Math.abs(lifetime - 24 * 3600 * 1000)).toBeLessThan(5000);

    const read = await api('GET', `/v1/approvals/${reply.body.id}`);
    expect(read.body).toEqual(reply.body);
    const record = await stack.database
      .db('ledger_entries')
      .where({ transaction_id: reply.body.provenance_id })
      .first();
    expect(record).toMatchObject({ subject_id: reply.body.id, step_id: 'requested' });
    const events = await stack.database.db('outbox_events').where({ provenance_seq: record.seq });
    expect(events.map((e: { event: string; data: unknown }) => [e.event, e.data])).toEqual([
      [
        'approval.requested',
        expect.objectContaining({
          approval_id: reply.body.id,
          status: 'pending',
          approver_passport_id: CFO,
          risk_level: 'high',
        }),
      ],
    ]);
  });

  it('with the same Idempotency-Key after a lost reply, reaches the same request', async () => {
    const key = `apr-${Math.random()}`;
    const first = await create({}, { 'idempotency-key': key });
    await stack.database.db('idempotency_keys').where({ idempotency_key: key }).delete();
    const retry = await create({}, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body.created_at).toBe(first.body.created_at);
  });

  it.each([
    ['no requester', { requester_passport_id: undefined }, 'requester_passport_id'],
    ['a deadline in the past', { expires_at: new Date(Date.now() - 1000).toISOString() }, 'expires_at'],
    ['a deadline beyond 30 days', { expires_in_seconds: 31 * 24 * 3600 }, 'expires_in_seconds'],
    [
      'both kinds of deadline',
      { expires_at: new Date(Date.now() + 60_000).toISOString(), expires_in_seconds: 60 },
      'expires_in_seconds',
    ],
    [
      'a params_schema with a remote $ref',
      { params_schema: { $ref: 'https://evil.example/schema.json' } },
      'params_schema',
    ],
    ['an unknown field', { bogus: 1 }, ''],
  ])('refuses %s with a field error and records nothing', async (_name, change, field) => {
    const before = await stack.database.db('approvals').count<{ count: number }[]>({ count: '*' });
    const reply = await create(change);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    const after = await stack.database.db('approvals').count<{ count: number }[]>({ count: '*' });
    expect(after[0]!.count).toBe(before[0]!.count);
  });
});

describe('responding', () => {
  it('approves with modified parameters that fit the request’s own parameters, exactly once', async () => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', responded_by: CFO, comment: 'half now', modified_params: { amount: 12_500 } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id,
      status: 'approved',
      responded_by: CFO,
      response_comment: 'half now',
      modified_params: { amount: 12_500 },
      response_kind: 'approved',
    });
    expect(Date.parse(reply.body.responded_at)).toBeGreaterThan(0);

    const again = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'rejected', responded_by: CFO },
    });
    expectProblem(again, 409, 'approval_not_pending');
    expect(again.body.detail).toContain('approved');
    expect((await api('GET', `/v1/approvals/${id}`)).body.status).toBe('approved');
  });

  it('lets exactly one of many concurrent answers through; the others get 409', async () => {
    const id = await pending();
    const answers = await Promise.all(
      ['approved', 'rejected', 'approved', 'rejected', 'approved', 'rejected'].map((decision, i) =>
        asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision, comment: `answer ${i}` } }),
      ),
    );
    const accepted = answers.filter((reply) => reply.status === 200);
    expect(accepted).toHaveLength(1);
    for (const reply of answers.filter((r) => r.status !== 200)) expectProblem(reply, 409, 'approval_not_pending');
    const final = (await api('GET', `/v1/approvals/${id}`)).body;
    expect(final).toMatchObject({
      status: accepted[0]!.body.status,
      response_comment: accepted[0]!.body.response_comment,
    });
    const records = await stack.database.db('ledger_entries').where({ subject_id: id }).orderBy('seq');
    expect(records.map((r: { step_id: string }) => r.step_id)).toEqual(['requested', 'responded']);
  });

  it.each([
    ['a parameter the request does not have', { iban: 'DE00' }, 'modified_params'],
    ['a parameter of another type', { amount: 'lots' }, 'modified_params.amount'],
  ])('refuses modified parameters with %s, leaving the request pending', async (_name, modified, field) => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', responded_by: CFO, modified_params: modified },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect((await api('GET', `/v1/approvals/${id}`)).body.status).toBe('pending');
  });

  it('checks modified parameters against the request’s own params_schema', async () => {
    const id = await pending({
      params_schema: {
        type: 'object',
        properties: { amount: { type: 'number', maximum: 25_000 } },
        additionalProperties: false,
      },
    });
    const tooMuch = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', responded_by: CFO, modified_params: { amount: 30_000 } },
    });
    expectProblem(tooMuch, 400, 'validation_failed');
    expect(tooMuch.body.errors).toEqual([
      expect.objectContaining({ field: 'modified_params.amount', code: 'too_big' }),
    ]);
    const fits = await asCfo('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', responded_by: CFO, modified_params: { amount: 20_000 } },
    });
    expect(fits.body).toMatchObject({ status: 'approved', modified_params: { amount: 20_000 } });
  });

  it('takes the simplified variant, answering as the signed-in person', async () => {
    const approved = await pending();
    const yes = await asCfo('POST', `/v1/approvals/${approved}/respond`, {
      json: { decision: 'approve', reason: 'fine' },
    });
    expect(yes.body).toMatchObject({
      status: 'approved',
      responded_by: CFO,
      response_comment: 'fine',
      response_kind: 'approve',
    });
    const rejected = await pending();
    const no = await asCfo('POST', `/v1/approvals/${rejected}/respond`, {
      json: { decision: 'reject', reason: 'wrong payee' },
    });
    expect(no.body).toMatchObject({ status: 'rejected', response_comment: 'wrong payee', response_kind: 'reject' });
  });

  it('refuses modified parameters on a rejection, and a body mixing the variants', async () => {
    const id = await pending();
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/respond`, {
        json: { decision: 'rejected', responded_by: CFO, modified_params: { amount: 1 } },
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve', responded_by: CFO } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'maybe', responded_by: CFO } }),
      400,
      'validation_failed',
    );
  });

  it('answers 404 for an unknown request and 403 to a reader', async () => {
    expectProblem(
      await asCfo('POST', '/v1/approvals/apr_nope/respond', { json: { decision: 'approve' } }),
      404,
      'approval_not_found',
    );
    expectProblem(await api('GET', '/v1/approvals/apr_nope'), 404, 'approval_not_found');
    const reader = client(stack.baseUrl, await stack.token(['platform:read']));
    const id = await pending();
    expectProblem(
      await reader('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } }),
      403,
      'insufficient_scope',
    );
    expect((await reader('GET', `/v1/approvals/${id}`)).status).toBe(200);
  });
});

describe('cancelling', () => {
  it('cancels with cancelled_by and reason, then refuses an answer', async () => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/approvals/${id}/cancel`, {
      json: { cancelled_by: CFO, reason: 'invoice withdrawn' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id,
      status: 'cancelled',
      cancelled_by: CFO,
      cancel_reason: 'invoice withdrawn',
      message: expect.stringContaining('cancelled'),
    });
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } }),
      409,
      'approval_not_pending',
    );
    expectProblem(
      await asCfo('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'again' } }),
      409,
      'approval_not_pending',
    );
  });

  it('takes the simplified variant (reason only), cancelling as the signed-in person', async () => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/approvals/${id}/cancel`, { json: { reason: 'not needed' } });
    expect(reply.body).toMatchObject({ status: 'cancelled', cancelled_by: CFO, message: expect.any(String) });
  });
});

describe('expiry', () => {
  it('expires at expires_at and then refuses an answer with 409', async () => {
    const id = await pending({ expires_in_seconds: 2 });
    const expired = await eventually(
      () => api('GET', `/v1/approvals/${id}`),
      (reply) => reply.body.status !== 'pending',
    );
    expect(expired.body.status).toBe('expired');
    expect(Date.parse(expired.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(expired.body.expires_at));
    const late = await asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approve' } });
    expectProblem(late, 409, 'approval_not_pending');
    expect(late.body.detail).toContain('expired');
    const events = await stack.database
      .db('outbox_events')
      .whereRaw("data->>'approval_id' = ?", [id])
      .orderBy('created_at');
    expect(events.map((e: { event: string }) => e.event)).toEqual(['approval.requested', 'approval.expired']);
  });
});

describe('GET /v1/approvals', () => {
  const org = `did:web:list-${Date.now()}.example`;
  const ids: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        await pending({
          org_did: org,
          approver_passport_id: i < 3 ? CFO : 'did:web:acme.example:people:ceo',
          agent_id: `agent://acme/lister-${i % 2}@1.0.0`,
        }),
      );
    }
    await asCfo('POST', `/v1/approvals/${ids[0]!}/respond`, { json: { decision: 'reject', reason: 'no' } });
  });

  it('filters by status, approver and agent_id, newest first', async () => {
    const byAgent = await api(
      'GET',
      `/v1/approvals?agent_id=${encodeURIComponent('agent://acme/lister-0@1.0.0')}&limit=100`,
    );
    expect(byAgent.body.data.map((a: { id: string }) => a.id)).toEqual([ids[4], ids[2], ids[0]]);
    const byApprover = await api(
      'GET',
      `/v1/approvals?approver=${encodeURIComponent('did:web:acme.example:people:ceo')}&limit=100`,
    );
    expect(byApprover.body.data.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining([ids[3], ids[4]]));
    expect(
      byApprover.body.data.every(
        (a: { approver_passport_id: string }) => a.approver_passport_id === 'did:web:acme.example:people:ceo',
      ),
    ).toBe(true);
    const rejected = await api('GET', `/v1/approvals?status=rejected&requester=${encodeURIComponent(PAYER)}&limit=100`);
    expect(rejected.body.data.map((a: { id: string }) => a.id)).toContain(ids[0]);
    expect(rejected.body.data.every((a: { status: string }) => a.status === 'rejected')).toBe(true);
  });

  it('pages with limit and an opaque cursor, with total_count', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: CallResult = await api(
        'GET',
        `/v1/approvals?agent_id=${encodeURIComponent('agent://acme/lister-1@1.0.0')}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.total_count).toBe(2);
      seen.push(...page.body.data.map((a: { id: string }) => a.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([ids[3], ids[1]]);
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['status=maybe', 'query.status'],
    ['approver=alice', 'query.approver'],
  ])('refuses %s', async (query, field) => {
    const reply = await api('GET', `/v1/approvals?${query}`);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field })]);
  });

  it('serves the escalation queue of an organization: pending by default, oldest first', async () => {
    const queue = await api('GET', `/v1/escalations?orgDid=${encodeURIComponent(org)}`);
    expect(queue.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(1));
    const rejected = await api('GET', `/v1/escalations?orgDid=${encodeURIComponent(org)}&status=rejected`);
    expect(rejected.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
  });
});

describe('POST /v1/escalations/{id}/respond', () => {
  it.each([
    ['approve', {}, 'approved', null],
    ['approved_with_modifications', { modifications: '{"amount": 10000}' }, 'approved', { amount: 10_000 }],
    ['reject', {}, 'rejected', null],
    ['request_changes', { notes: 'split the invoice' }, 'rejected', null],
  ])('answers %s', async (decision, extra, status, modified) => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/escalations/${id}/respond`, { json: { decision, ...extra } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status, response_kind: decision, modified_params: modified });
    if (decision === 'request_changes') expect(reply.body.response_comment).toBe('split the invoice');
  });

  it.each([
    [
      'modifications that are not a JSON object',
      { decision: 'approved_with_modifications', modifications: 'more please' },
      'modifications',
    ],
    ['approved_with_modifications without them', { decision: 'approved_with_modifications' }, 'modifications'],
    [
      'modifications the request cannot take',
      { decision: 'approved_with_modifications', modifications: '{"bonus": true}' },
      'modified_params',
    ],
  ])('refuses %s', async (_name, body, field) => {
    const id = await pending();
    const reply = await asCfo('POST', `/v1/escalations/${id}/respond`, { json: body });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field })]);
  });
});

describe('what approvals leave behind', () => {
  it('sets HandoffPlatformStatus and HandoffApprover for the Temporal UI', async () => {
    const probe = await signedInPerson(stack, { name: 'Search attribute probe' });
    const approver = probe.did;
    const id = await pending({ approver_passport_id: approver });
    expect(
      (
        await client(stack.baseUrl, probe.sessionToken)('POST', `/v1/approvals/${id}/respond`, {
          json: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    const query = `WorkflowId = "${id}" AND WorkflowType = "approvalWorkflow" AND HandoffPlatformStatus = "approved" AND HandoffApprover = "${approver}"`;
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const workflow of stack.temporal.workflow.list({ query })) ids.push(workflow.workflowId);
        return ids;
      },
      (list) => list.length === 1,
    );
    expect(found).toEqual([id]);
  });

  it('leaves a ledger that verifies against its signed checkpoints', async () => {
    expect(await verifyStoredLedger(stack.database.db)).toMatchObject({ ok: true, problems: [] });
  });
});

describe('the OpenAPI document', () => {
  it.each([
    ['/v1/approvals', 'post', 'createApproval', 'platform:write'],
    ['/v1/approvals', 'get', 'listApprovals', 'platform:read'],
    ['/v1/approvals/{approval_id}', 'get', 'getApproval', 'platform:read'],
    ['/v1/approvals/{approval_id}/respond', 'post', 'respondToApproval', 'platform:write'],
    ['/v1/approvals/{approval_id}/cancel', 'post', 'cancelApproval', 'platform:write'],
    ['/v1/escalations', 'get', 'listEscalationQueue', 'platform:read'],
    ['/v1/escalations/{approval_id}/respond', 'post', 'respondToEscalation', 'platform:write'],
    ['/v1/agents', 'get', 'listAgents', 'platform:read'],
    ['/v1/agents', 'post', 'registerAgent', 'platform:admin'],
    ['/v1/agents/{agent_id}', 'get', 'getAgent', 'platform:read'],
    ['/v1/agents/{agent_id}', 'patch', 'updateAgent', 'platform:admin'],
    ['/v1/agents/{agent_id}/deployments', 'post', 'deployAgent', 'platform:admin'],
    ['/v1/agents/call', 'post', 'callAgent', 'platform:write'],
    ['/v1/agents/{agent_id}/call', 'post', 'callAgentById', 'platform:write'],
    ['/v1/executions', 'get', 'listExecutions', 'platform:read'],
    ['/v1/executions/{execution_id}', 'get', 'getExecution', 'platform:read'],
    ['/v1/executions/{execution_id}/cancel', 'post', 'cancelExecution', 'platform:write'],
    ['/v1/executions/{execution_id}/progress', 'post', 'reportExecutionProgress', null],
    ['/v1/callback-secrets', 'post', 'rotateCallbackSecret', 'platform:write'],
    ['/v1/workflows', 'post', 'createWorkflow', 'platform:write'],
    ['/v1/workflows', 'get', 'listWorkflows', 'platform:read'],
    ['/v1/workflows/{workflow_id}', 'get', 'getWorkflow', 'platform:read'],
    ['/v1/workflows/{workflow_id}/stats', 'get', 'getWorkflowStats', 'platform:read'],
    ['/v1/workflows/{workflow_id}/provenance', 'get', 'getWorkflowProvenance', 'platform:read'],
    ['/v1/tasks', 'post', 'submitTask', 'platform:write'],
    ['/v1/tasks/{task_id}', 'get', 'getTask', 'platform:read'],
    ['/v1/tasks/{task_id}/status', 'get', 'getTaskStatus', 'platform:read'],
    ['/v1/health/check', 'post', 'checkOrganizationHealth', 'platform:write'],
    ['/v1/platform/health', 'get', 'getPlatformHealth', null],
    ['/v1/platform/status', 'get', 'getPlatformStatus', 'platform:read'],
  ])('documents %s %s as %s (%s)', async (path, method, operationId, scope) => {
    const doc = (await api('GET', '/openapi.json')).body;
    const operation = doc.paths[path]?.[method];
    expect(operation).toMatchObject({ operationId });
    if (scope) expect(operation.security).toEqual([{ bearerAuth: [scope] }]);
    else expect(operation.security).toBeUndefined();
  });

  it('describes both variants of the respond body', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const variants =
      doc.components.schemas.RespondApprovalRequest.oneOf ?? doc.components.schemas.RespondApprovalRequest.anyOf;
    expect(
      variants.map((variant: { properties: { decision: { enum: string[] } } }) => variant.properties.decision.enum),
    ).toEqual([
      ['approved', 'rejected'],
      ['approve', 'reject'],
    ]);
  });
});
