import { appendProvenanceBatch } from '../../db/ledger';
import { ledgerSealingLag } from '../../db/ledger-blocks';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { client, expectProblem, type CallResult } from '../support/http';
import { useStack } from '../support/stack';

let orch: ReturnType<typeof client>;
let auditor: ReturnType<typeof client>;

// A reviewer has one second before the routing moves up the chain.
const stack = useStack({ ESCALATION_TIMEOUT_LOW_SECONDS: '1' });
beforeAll(async () => {
  orch = client(stack.baseUrl, await stack.token(['orch:write', 'orch:read']));
  auditor = client(stack.baseUrl, await stack.token(['audit:read']));
});

const diagnosis = {
  task_type: 'audit_diagnosis',
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.55,
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};

const dated = (step_id: string, timestamp: string): { entry: ProvenanceEntry } => ({
  entry: {
    subject_id: 'agent-registry',
    step_id,
    timestamp,
    actor: { type: 'orch_core' },
    action: 'agent_registered',
    input_data: {},
    output_data: {},
    reasoning: 'registered',
  },
});

async function allPages(path: string): Promise<CallResult['body'][]> {
  const entries = [];
  let cursor: string | null = null;
  do {
    const page: CallResult = await auditor(
      'GET',
      `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status).toBe(200);
    entries.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return entries;
}

let routingId: string;
let anchor: { transaction_id: string; block_number: number };

beforeAll(async () => {
  const routed = await orch('POST', '/v1/orch/routing', { json: diagnosis });
  routingId = routed.body.routing_id;
  anchor = routed.body.provenance.ledger_anchor;
  // The first reviewer lets their second pass: the routing climbs to the next level.
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const status = await orch('GET', `/v1/orch/routing/${routingId}`);
    if (status.body.escalation_chain.length > 1) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await appendProvenanceBatch(stack.database.db, [
    dated('july', '2026-07-01T08:00:00.000Z'),
    dated('august', '2026-08-15T12:00:00.000Z'),
    dated('october', '2026-10-02T00:00:00.000Z'),
  ]);
  while ((await ledgerSealingLag(stack.database.db)).unsealed_leaves > 0)
    await new Promise((resolve) => setTimeout(resolve, 50));
});

describe('GET /v1/orch/audit', () => {
  it('shows a routing’s decision and escalation as entries with their rule, risk, assignee and ledger anchor', async () => {
    const { status, body } = await auditor('GET', `/v1/orch/audit?routing_id=${routingId}&sort=timestamp`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ has_more: false, next_cursor: null, total_count: 5 });
    // The four decision moments share the decision's timestamp; the escalation comes later.
    expect(
      body.data
        .slice(0, 4)
        .map((entry: { event_type: string }) => entry.event_type)
        .sort(),
    ).toEqual(['capability_assessment', 'context_analysis', 'risk_evaluation', 'routing_decision']);
    expect(body.data.find((entry: { event_type: string }) => entry.event_type === 'routing_decision')).toEqual({
      entry_id: anchor.transaction_id,
      event_id: anchor.transaction_id,
      timestamp: expect.any(String),
      event_type: 'routing_decision',
      type: 'routing_decision',
      routing_id: routingId,
      subject_id: routingId,
      task_type: 'audit_diagnosis',
      actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
      details: {
        rule_triggered: 'ai_confidence_below_threshold',
        risk_level: 'low',
        assigned_to: 'did:web:handoff.local:reviewers:ada',
        action: 'routing_decided',
        summary: expect.stringContaining('escalate_to_human'),
      },
      ledger_anchor: anchor,
      leaf_index: expect.any(Number),
    });
    expect(body.data[4]).toMatchObject({
      event_type: 'escalation_triggered',
      details: {
        rule_triggered: 'reviewer_timeout',
        assigned_to: 'did:web:handoff.local:reviewers:alan',
        risk_level: 'low',
      },
    });
  });

  it('filters by event type (or its alias type) and task type', async () => {
    const escalations = await allPages(`/v1/orch/audit?type=escalation_triggered&task_type=audit_diagnosis`);
    expect(escalations.map((entry) => entry.routing_id)).toEqual([routingId]);
    const decisions = await allPages(`/v1/orch/audit?event_type=routing_decision&task_type=audit_diagnosis`);
    expect(decisions.map((entry) => entry.entry_id)).toEqual([anchor.transaction_id]);
    expect(await allPages('/v1/orch/audit?task_type=no_such_task')).toEqual([]);
  });

  it('filters by dates: a date means the whole UTC day, date__gte and start_date take the later bound', async () => {
    const ids = async (query: string) =>
      (await allPages(`/v1/orch/audit?event_type=agent_registered&sort=timestamp&${query}`)).map((entry) =>
        JSON.stringify(entry.timestamp),
      );
    expect(await ids('start_date=2026-07-01&end_date=2026-09-30')).toEqual([
      '"2026-07-01T08:00:00.000Z"',
      '"2026-08-15T12:00:00.000Z"',
    ]);
    expect(await ids('end_date=2026-08-15')).toEqual(['"2026-07-01T08:00:00.000Z"', '"2026-08-15T12:00:00.000Z"']);
    expect(await ids('end_date=2026-08-15T11:59:59Z')).toEqual(['"2026-07-01T08:00:00.000Z"']);
    expect(await ids('date__gte=2026-08-01&start_date=2026-07-01')).toEqual([
      '"2026-08-15T12:00:00.000Z"',
      '"2026-10-02T00:00:00.000Z"',
    ]);
  });

  it('pages newest first with stable cursors while entries are appended', async () => {
    const first = await auditor('GET', '/v1/orch/audit?event_type=agent_registered&limit=2');
    expect(first.body.data.map((entry: { timestamp: string }) => entry.timestamp)).toEqual([
      '2026-10-02T00:00:00.000Z',
      '2026-08-15T12:00:00.000Z',
    ]);
    await appendProvenanceBatch(stack.database.db, [dated('november', '2026-11-01T00:00:00.000Z')]);
    const second = await auditor(
      'GET',
      `/v1/orch/audit?event_type=agent_registered&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.data.map((entry: { timestamp: string }) => entry.timestamp)).toEqual([
      '2026-07-01T08:00:00.000Z',
    ]);
    expect(second.body.has_more).toBe(false);
  });

  it.each([
    ['an end before the start', 'start_date=2026-08-01&end_date=2026-07-01', 'query.end_date'],
    ['a type that contradicts event_type', 'event_type=routing_decision&type=escalation_triggered', 'query.type'],
    ['a malformed date', 'start_date=last-tuesday', 'query.start_date'],
    ['an unknown sort field', 'sort=event_type', 'query.sort'],
  ])('rejects %s with a field error', async (_name, query, field) => {
    const reply = await auditor('GET', `/v1/orch/audit?${query}`);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field })]);
  });

  it('rejects a cursor it did not issue', async () => {
    expectProblem(await auditor('GET', '/v1/orch/audit?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_cursor');
  });

  it('needs the audit:read scope and counts against the audit-logs limit', async () => {
    expectProblem(await orch('GET', '/v1/orch/audit'), 403, 'insufficient_scope');
    const reply = await auditor('GET', '/v1/orch/audit?limit=1');
    expect(reply.headers.get('x-ratelimit-resource')).toBe('audit-logs');
    expect(reply.headers.get('x-ratelimit-limit')).toBe('500');
  });
});
