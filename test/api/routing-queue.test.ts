import { eventually } from '../support/eventually';
import { client, expectProblem } from '../support/http';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
});

// Each test asks for a capability of its own, so that reviewers registered by one do not serve another.
const lowConfidence = (capability: string) => ({
  task_type: 'medical_diagnosis',
  context: { patient_age: 61 },
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.55,
  ai_recommendation: 'start beta blockers',
  required_capabilities: [{ capability_id: capability, min_weight: 0.8 }],
});
const status = (routingId: string) => admin('GET', `/v1/orch/routing/${routingId}`);

describe('a routing that needs a human nobody qualifies for', () => {
  it('waits unassigned in the queue, tells the supervisors, and says that a human takes over when one is available', async () => {
    const reply = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology') });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      decision: 'escalate_to_human',
      reason: 'ai_confidence_below_threshold',
      assigned_to: null,
      queued: {
        reason: 'no_qualified_reviewer',
        required_capabilities: [{ capability_id: 'cardiology', min_weight: 0.8 }],
        message: expect.stringContaining('cardiology'),
      },
    });
    expect((await status(reply.body.routing_id)).body).toMatchObject({
      status: 'queued',
      assigned_to: null,
      progress: { current_step: 'assignment' },
    });
    expect(await eventKinds(stack.database.db, reply.body.routing_id, 'routing_decision')).toEqual([
      'routing.decided',
      'routing.queued',
    ]);
  });

  it('is assigned the moment a qualified reviewer is registered', async () => {
    const queued = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_registered') });
    expect(queued.body.assigned_to).toBeNull();

    const cardiologist = 'did:web:example.com:reviewers:cardiologist';
    expect(
      (
        await admin('PUT', `/v1/orch/reviewers/${cardiologist}`, {
          json: { display_name: 'Cardiologist', capabilities: { cardiology_registered: 0.9 } },
        })
      ).status,
    ).toBe(204);
    const assigned = await eventually(
      () => status(queued.body.routing_id),
      (reply) => reply.body.status === 'in_progress',
    );
    expect(assigned.body).toMatchObject({
      assigned_to: { type: 'human', did: cardiologist },
      escalation_chain: [{ level: 1, did: cardiologist }],
    });
    expect(await eventKinds(stack.database.db, queued.body.routing_id, 'escalation:1')).toEqual([
      'escalation.triggered',
      'routing.escalated',
    ]);
    expect((await resolveAs(stack, queued.body.routing_id, cardiologist, { outcome: 'approved' })).status).toBe(200);
  });

  it('is assigned when an unqualified reviewer is updated to hold the capability', async () => {
    const reviewer = 'did:web:example.com:reviewers:retrained';
    await admin('PUT', `/v1/orch/reviewers/${reviewer}`, {
      json: { display_name: 'Retrained', capabilities: { cardiology_updated: 0.5 } },
    });
    const queued = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_updated') });
    expect(queued.body.assigned_to).toBeNull();
    await admin('PUT', `/v1/orch/reviewers/${reviewer}`, {
      json: { display_name: 'Retrained', capabilities: { cardiology_updated: 0.85 } },
    });
    const assigned = await eventually(
      () => status(queued.body.routing_id),
      (reply) => reply.body.status === 'in_progress',
    );
    expect(assigned.body.assigned_to.did).toBe(reviewer);
  });

  it('is assigned when a qualified reviewer at capacity is freed by a resolution', async () => {
    const reviewer = 'did:web:example.com:reviewers:busy-cardiologist';
    await admin('PUT', `/v1/orch/reviewers/${reviewer}`, {
      json: { display_name: 'Busy', capabilities: { cardiology_freed: 0.9 }, capacity: 1 },
    });
    const held = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_freed') });
    expect(held.body.assigned_to.did).toBe(reviewer);
    const queued = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_freed') });
    expect(queued.body.assigned_to).toBeNull();

    await resolveAs(stack, held.body.routing_id, reviewer, { outcome: 'approved' });
    const assigned = await eventually(
      () => status(queued.body.routing_id),
      (reply) => reply.body.status === 'in_progress',
    );
    expect(assigned.body.assigned_to.did).toBe(reviewer);
  });
});

describe('POST /v1/orch/routing/{routing_id}/assign', () => {
  it('lets an admin assign a queued routing to a reviewer, and answers 409 once it no longer waits', async () => {
    const lead = 'did:web:example.com:reviewers:lead';
    await admin('PUT', `/v1/orch/reviewers/${lead}`, {
      json: { display_name: 'Lead', capabilities: { general_review: 1 } },
    });
    const queued = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_admin') });

    const reply = await admin('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, {
      json: { reviewer_did: lead, reason: 'covers cardiology this week' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      routing_id: queued.body.routing_id,
      status: 'assigned',
      assigned_to: { type: 'human', did: lead, capabilities: [] },
      escalation_chain: [{ level: 1, did: lead }],
    });
    expect((await status(queued.body.routing_id)).body).toMatchObject({
      status: 'in_progress',
      assigned_to: { did: lead },
    });
    const record = await provenanceEntry(stack.database.db, queued.body.routing_id, 'escalation:1');
    expect(record).toMatchObject({
      action: 'assigned_by_admin',
      actor: { type: 'human' },
      reasoning: expect.stringContaining('covers cardiology this week'),
    });

    expectProblem(
      await admin('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, { json: { reviewer_did: lead } }),
      409,
      'routing_not_queued',
    );
  });

  it('answers 422 for a reviewer that is not registered, 404 for no routing, 400 for bad input, 403 without orch:admin', async () => {
    const queued = await admin('POST', '/v1/orch/routing', { json: lowConfidence('cardiology_refusals') });
    expectProblem(
      await admin('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, {
        json: { reviewer_did: 'did:web:example.com:nobody' },
      }),
      422,
      'reviewer_not_available',
    );
    expectProblem(
      await admin('POST', '/v1/orch/routing/rt_00000000-0000-0000-0000-000000000000/assign', {
        json: { reviewer_did: 'did:web:handoff.local:reviewers:ada' },
      }),
      404,
      'routing_not_found',
    );
    expectProblem(
      await admin('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, { json: { reviewer_did: 'not a did' } }),
      400,
      'validation_failed',
    );
    const writer = client(stack.baseUrl, await stack.token(['orch:read', 'orch:write']));
    expectProblem(
      await writer('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, {
        json: { reviewer_did: 'did:web:handoff.local:reviewers:ada' },
      }),
      403,
      'insufficient_scope',
    );
    expect((await status(queued.body.routing_id)).body.status).toBe('queued');
  });
});
