import { registerAgent, taskId } from '../support/agents';
import { client, expectProblem } from '../support/http';
import { asPerson, resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

const REVIEWER = 'did:web:example.com:reviewers:history';

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  await admin('PUT', `/v1/orch/reviewers/${REVIEWER}`, {
    json: { display_name: 'History', capabilities: { ledger: 0.9 } },
  });
});

const route = (body: Record<string, unknown>) =>
  admin('POST', '/v1/orch/routing', {
    json: { ai_agent_id: 'urn:acme:agent:hist:1', required_capabilities: ['ledger'], ...body },
  });

describe('GET /v1/orch/routing/history', () => {
  it('filters by status, decision, task type, agent and confidence, sorts, and pages with total_count', async () => {
    const confidences = [0.2, 0.4, 0.65, 0.75, 0.85, 0.95];
    for (const ai_confidence of confidences) await route({ task_type: 'hist_probe', ai_confidence });
    await route({ task_type: 'hist_other', ai_confidence: 0.9, ai_agent_id: 'urn:acme:agent:hist:2' });

    const escalated = await admin(
      'GET',
      '/v1/orch/routing/history?task_type=hist_probe&decision=escalate_to_human&status=in_progress',
    );
    expect(escalated.body.total_count).toBe(3);
    expect(
      escalated.body.data.every(
        (r: { decision: string; fourth_law_triggered: boolean }) =>
          r.decision === 'escalate_to_human' && r.fourth_law_triggered,
      ),
    ).toBe(true);

    const confident = await admin(
      'GET',
      '/v1/orch/routing/history?task_type=hist_probe&confidence__gte=0.7&sort=-ai_confidence',
    );
    expect(confident.body.data.map((r: { ai_confidence: number }) => r.ai_confidence)).toEqual([0.95, 0.85, 0.75]);
    expect(confident.body.data[0]).toMatchObject({
      status: 'completed',
      decision: 'ai_autonomous',
      domain: 'general',
      routing_mode: 'ai_first',
      risk_level: 'low',
      assigned_to: { type: 'ai_agent' },
      safety_violations: 0,
    });

    const band = await admin(
      'GET',
      '/v1/orch/routing/history?task_type=hist_probe&confidence__gte=0.4&confidence__lte=0.8&sort=ai_confidence',
    );
    expect(band.body.data.map((r: { ai_confidence: number }) => r.ai_confidence)).toEqual([0.4, 0.65, 0.75]);

    expect((await admin('GET', '/v1/orch/routing/history?agent=urn:acme:agent:hist:2')).body).toMatchObject({
      total_count: 1,
      data: [{ task_type: 'hist_other' }],
    });

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await admin(
        'GET',
        `/v1/orch/routing/history?task_type=hist_probe&limit=4&sort=ai_confidence${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.total_count).toBe(6);
      pages.push(page.body.data.map((r: { routing_id: string }) => r.routing_id));
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([4, 2]);
    expect(new Set(pages.flat()).size).toBe(6);
  });

  it('bounds by date', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const routed = await route({ task_type: 'hist_dated', ai_confidence: 0.9 });
    const inside = await admin(
      'GET',
      `/v1/orch/routing/history?task_type=hist_dated&date__gte=${encodeURIComponent(before)}`,
    );
    expect(inside.body.data.map((r: { routing_id: string }) => r.routing_id)).toEqual([routed.body.routing_id]);
    expect(
      (await admin('GET', `/v1/orch/routing/history?task_type=hist_dated&date__lte=${encodeURIComponent(before)}`)).body
        .total_count,
    ).toBe(0);
  });

  it('refuses unknown filters values, sort fields and foreign cursors', async () => {
    expectProblem(await admin('GET', '/v1/orch/routing/history?status=sleeping'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/orch/routing/history?confidence__gte=2'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/orch/routing/history?date__gte=yesterday'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/orch/routing/history?sort=secret'), 400, 'validation_failed');
    expectProblem(await admin('GET', '/v1/orch/routing/history?cursor=bm90LW91cnM'), 400, 'invalid_cursor');
  });
});

describe('feedback and agent performance', () => {
  it('computes every figure from real outcomes, feedback and safety checks, with the trend against the previous period', async () => {
    const { agent_id, api_key } = await registerAgent(admin, {
      agent_type: 'claims',
      capabilities: [{ capability_id: 'ledger', confidence_level: 0.9 }],
    });
    const as = client(stack.baseUrl, api_key);
    const routeTask = async (confidence: number, task_type = 'ledger_check') =>
      (
        await as('POST', '/v1/orch/route', {
          json: {
            task_id: taskId(),
            task_type,
            ai_assessment: { confidence },
            required_capabilities: ['ledger'],
            routing_mode: 'ai_first',
          },
        })
      ).body.routing_id as string;

    // Previous period: 6 autonomous routings, 3 of them overturned.
    const previous: string[] = [];
    for (let i = 0; i < 6; i += 1) previous.push(await routeTask(0.9));
    for (const id of previous.slice(0, 3))
      expect(
        (
          await (
            await asPerson(stack, REVIEWER)
          )('POST', `/v1/orch/routing/${id}/feedback`, {
            json: { verdict: 'overturned', reason: 'wrong', submitted_by: REVIEWER },
          })
        ).status,
      ).toBe(201);
    await stack.database
      .db('routings')
      .whereIn('routing_id', previous)
      .update({ created_at: stack.database.db.raw("now() - interval '40 days'") });

    // This period: 6 autonomous (1 overturned, 1 confirmed), 4 escalated (2 approved, 1 rejected, 1 open).
    const autonomous: string[] = [];
    for (let i = 0; i < 6; i += 1) autonomous.push(await routeTask(0.9));
    const escalated: string[] = [];
    for (let i = 0; i < 4; i += 1) escalated.push(await routeTask(0.5, 'ledger_dispute'));
    await (
      await asPerson(stack, REVIEWER)
    )('POST', `/v1/orch/routing/${autonomous[0]!}/feedback`, {
      json: { verdict: 'flagged', reason: 'check this', submitted_by: REVIEWER },
    });
    await (
      await asPerson(stack, REVIEWER)
    )('POST', `/v1/orch/routing/${autonomous[1]!}/feedback`, {
      json: { verdict: 'confirmed', reason: 'fine', submitted_by: REVIEWER },
    });
    for (const [id, outcome] of [
      [escalated[0]!, 'approved'],
      [escalated[1]!, 'approved'],
      [escalated[2]!, 'rejected'],
    ] as const) {
      expect((await resolveAs(stack, id, REVIEWER, { outcome })).status).toBe(200);
    }
    await as('POST', '/v1/orch/safety/check', {
      json: { action: 'ledger_check', actor: { type: 'ai_agent', confidence: 0.5 } },
    });

    const reply = await admin('GET', `/v1/orch/agents/${encodeURIComponent(agent_id)}/performance?period=30d`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-resource')).toBe('agent-monitoring');
    expect(reply.body).toMatchObject({
      agent_id,
      period: '30d',
      total_requests: 10,
      // 6 − 1 flagged autonomous decisions stood, and 2 were approved.
      successful_resolutions: 7,
      escalations_to_human: 4,
      escalation_rate: 0.4,
      safety_violations: 1,
      // 6 autonomous routings met every boundary (the 4 escalated broke the Fourth Law); no safety check passed.
      boundary_checks_passed: 6,
      accuracy_metrics: { human_agreement_rate: 3 / 5, false_positive_rate: 2 / 3, false_negative_rate: 1 / 6 },
      // 7 of 9 settled now against 3 of 6 before.
      performance_trend: 'improving',
    });
    expect(reply.body.avg_confidence).toBeCloseTo(0.74);
    // Most affected first; equal weights in alphabetical order.
    expect(reply.body.areas_for_improvement).toEqual([
      'ai_confidence_below_threshold: the reason for 4 of 4 escalations',
      'ledger_dispute: escalated 4 of 4 routings (100%)',
      'ledger_check: 1 of 6 autonomous decisions overturned or flagged',
      'unnecessary escalations: humans approved 2 of 3 escalated recommendations unchanged',
      'safety boundaries: 1 violations',
    ]);
    expect(Date.parse(reply.body.period_end) - Date.parse(reply.body.period_start)).toBe(30 * 86_400_000);
  });

  it('refuses feedback on a routing with no outcome yet, and validates period and agent', async () => {
    const open = await route({ task_type: 'hist_open', ai_confidence: 0.3 });
    expectProblem(
      await (
        await asPerson(stack, REVIEWER)
      )('POST', `/v1/orch/routing/${open.body.routing_id}/feedback`, {
        json: { verdict: 'overturned', reason: 'x', submitted_by: REVIEWER },
      }),
      409,
      'routing_not_completed',
    );
    expectProblem(
      await (
        await asPerson(stack, REVIEWER)
      )('POST', '/v1/orch/routing/rt_00000000-0000-0000-0000-000000000000/feedback', {
        json: { verdict: 'confirmed', reason: 'x', submitted_by: REVIEWER },
      }),
      404,
      'routing_not_found',
    );
    expectProblem(
      await (
        await asPerson(stack, REVIEWER)
      )('POST', `/v1/orch/routing/${open.body.routing_id}/feedback`, {
        json: { verdict: 'meh', reason: '', submitted_by: 'me' },
      }),
      400,
      'validation_failed',
    );
    const { agent_id } = await registerAgent(admin);
    expectProblem(
      await admin('GET', `/v1/orch/agents/${encodeURIComponent(agent_id)}/performance?period=30y`),
      400,
      'validation_failed',
    );
    expectProblem(await admin('GET', '/v1/orch/agents/urn:acme:agent:none:0/performance'), 404, 'agent_not_found');
    expect((await admin('GET', `/v1/orch/agents/${encodeURIComponent(agent_id)}/performance`)).body).toMatchObject({
      period: '30d',
      total_requests: 0,
      performance_trend: 'insufficient_data',
    });
  });
});
