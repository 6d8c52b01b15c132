import { emitEvents } from '../support/events';
import { client, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

let api: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token(['platform:read', 'orch:write']));
});

describe('GET /v1/events', () => {
  it('lists every event a routing emitted, each with the provenance record it was appended with', async () => {
    const routed = await api('POST', '/v1/orch/routing', {
      json: {
        task_type: 'medical_diagnosis',
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.5,
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      },
    });
    expect(routed.status).toBe(200);
    const { routing_id } = routed.body;

    const page = await api('GET', `/v1/events?subject_id=${routing_id}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ has_more: false, next_cursor: null, total_count: page.body.data.length });
    const kinds: string[] = page.body.data.map((event: { event: string }) => event.event).sort();
    expect(kinds.filter((kind) => !kind.startsWith('safety.'))).toEqual([
      'escalation.triggered',
      'routing.decided',
      'routing.escalated',
    ]);
    // Confidence below the Fourth Law's threshold violates a boundary, told under both of the spec's names.
    const violations = kinds.filter((kind) => kind === 'safety.violation').length;
    expect(violations).toBeGreaterThan(0);
    expect(kinds.filter((kind) => kind === 'safety.boundary_violation')).toHaveLength(violations);
    for (const event of page.body.data) {
      const decision = !event.event.startsWith('safety.');
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        event: expect.any(String),
        created_at: expect.any(String),
        data: expect.any(Object),
        provenance: {
          subject_id: routing_id,
          // Violations are found while the context is analysed; the outcome is told with the decision.
          step_id: decision ? 'routing_decision' : 'context_analysis',
          ledger_anchor: decision
            ? routed.body.provenance.ledger_anchor
            : expect.objectContaining({ transaction_id: expect.any(String) }),
          url: `/v1/orch/provenance/${routing_id}`,
        },
      });
    }
    const escalated = page.body.data.find((event: { event: string }) => event.event === 'routing.escalated');
    expect(escalated.data).toEqual({
      task_id: null,
      routing_id,
      reason: 'ai_confidence_below_threshold',
      assigned_human: routed.body.assigned_to.did,
    });

    const one = await api('GET', `/v1/events/${escalated.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(escalated);
  });

  it('filters by kind (one or several, `type` as an alias) and by time, and pages with a cursor', async () => {
    const subject = `test_filter_${Date.now()}`;
    const ids = await emitEvents(
      stack.database.db,
      [
        { event: 'agent.registered', data: { n: 1 } },
        { event: 'agent.registered', data: { n: 2 } },
        { event: 'audit.critical', data: { n: 3 } },
      ],
      subject,
    );
    const kinds = (await api('GET', `/v1/events?subject_id=${subject}&event=agent.registered`)).body.data.map(
      (event: { id: string }) => event.id,
    );
    expect(kinds.sort()).toEqual([ids[0], ids[1]].sort());
    const both = await api('GET', `/v1/events?subject_id=${subject}&type=agent.registered,audit.critical`);
    expect(both.body.total_count).toBe(3);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: { body: { data: { id: string }[]; next_cursor: string | null } } = await api(
        'GET',
        `/v1/events?subject_id=${subject}&limit=1&sort=created_at${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...reply.body.data.map((event) => event.id));
      cursor = reply.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());

    const future = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await api('GET', `/v1/events?subject_id=${subject}&created_at__gte=${encodeURIComponent(future)}`)).body
        .total_count,
    ).toBe(0);
    expect(
      (await api('GET', `/v1/events?subject_id=${subject}&created_at__lte=${encodeURIComponent(future)}`)).body
        .total_count,
    ).toBe(3);
  });

  it('lists newest first unless sorted otherwise', async () => {
    const subject = `test_order_${Date.now()}`;
    const [older] = await emitEvents(
      stack.database.db,
      [{ event: 'safety.boundary_violation', data: { n: 'older' } }],
      subject,
    );
    const [newer] = await emitEvents(
      stack.database.db,
      [{ event: 'safety.boundary_violation', data: { n: 'newer' } }],
      `${subject}_2`,
    );
    const ids = async (query: string) =>
      (await api('GET', `/v1/events?event=safety.boundary_violation&limit=100${query}`)).body.data
        .map((event: { id: string }) => event.id)
        .filter((id: string) => id === older || id === newer);
    expect(await ids('')).toEqual([newer, older]);
    expect(await ids('&sort=created_at')).toEqual([older, newer]);
  });

  it('answers a clear problem for an unknown kind, a bad date, a foreign cursor and an unknown event', async () => {
    const kind = await api('GET', '/v1/events?event=routing.exploded');
    expectProblem(kind, 400, 'validation_failed');
    expect(kind.body.errors[0]).toMatchObject({
      field: 'query.event',
      message: 'routing.exploded is not an event kind',
    });
    expectProblem(await api('GET', '/v1/events?created_at__gte=yesterday'), 400, 'validation_failed');
    expectProblem(await api('GET', '/v1/events?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_cursor');
    expectProblem(await api('GET', '/v1/events/evt_missing'), 404, 'event_not_found');
  });

  it('needs platform:read', async () => {
    const orchOnly = client(stack.baseUrl, await stack.token(['orch:admin', 'audit:read']));
    expectProblem(await orchOnly('GET', '/v1/events'), 403, 'insufficient_scope');
  });
});
