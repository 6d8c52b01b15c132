import { eventually } from '../support/eventually';
import { client } from '../support/http';
import { provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

/**
 * Grants are the one source of who holds a capability, and routing asks the capabilities matcher: a
 * reviewer's capabilities become grants, a grant made by the API or its revocation is what routing sees,
 * and a need relaxed after a stated wait lets a reviewer lacking it take a queued routing, recorded.
 */
let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['orch:admin', 'orch:write', 'orch:read', 'platform:admin']));
  expect((await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Default' } })).status).toBe(201);
});

const lowConfidence = (required: unknown[]) => ({
  task_type: 'medical_diagnosis',
  context: { patient_age: 61 },
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.55,
  ai_recommendation: 'start beta blockers',
  required_capabilities: required,
});
const status = (routingId: string) => admin('GET', `/v1/orch/routing/${routingId}`);
const grantsOf = async (did: string) =>
  (await admin('GET', `/v1/capability-grants?subject_did=${encodeURIComponent(did)}&live=true`)).body.data as Array<{
    grantId: string;
    capabilityId: string;
    weight: number;
    source: string;
  }>;

describe('reviewers’ capabilities as grants', () => {
  it('writes a reviewer’s capabilities as grants, lower-cased, and replaces them when the reviewer changes', async () => {
    const did = 'did:web:example.com:reviewers:granted';
    await admin('PUT', `/v1/orch/reviewers/${did}`, {
      json: { display_name: 'Granted', capabilities: { Oncology_Review: 0.9 } },
    });
    expect(await grantsOf(did)).toEqual([
      expect.objectContaining({
        capabilityId: 'capability://default/oncology_review',
        weight: 0.9,
        source: 'migration',
      }),
    ]);
    await admin('PUT', `/v1/orch/reviewers/${did}`, {
      json: { display_name: 'Granted', capabilities: { oncology_review: 0.6 } },
    });
    expect((await grantsOf(did)).map((g) => g.weight)).toEqual([0.6]);
    const read = await admin('GET', '/v1/orch/reviewers?capability=oncology_review');
    expect(read.body.data).toEqual([expect.objectContaining({ did, capabilities: { oncology_review: 0.6 } })]);
  });

  it('routes to a person by a grant made through the API, and no longer once it is revoked', async () => {
    const did = 'did:web:example.com:reviewers:api-granted';
    await admin('PUT', `/v1/orch/reviewers/${did}`, { json: { display_name: 'By grant', capabilities: {} } });
    expect(
      (
        await admin('POST', '/v1/capabilities', {
          json: { capabilityId: 'capability://granted_review', name: 'G', description: 'G' },
        })
      ).status,
    ).toBe(201);
    const granted = await admin('POST', '/v1/capability-grants', {
      json: { personDID: did, capabilities: ['capability://granted_review'], weight: 0.9 },
    });
    expect(granted.status).toBe(201);
    const routed = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'granted_review', min_weight: 0.8 }]),
    });
    expect(routed.body.assigned_to).toMatchObject({
      did,
      capabilities_matched: [{ capability_id: 'granted_review', weight: 0.9 }],
    });

    const grantId = granted.body.data[0].grantId as string;
    expect((await admin('POST', `/v1/capability-grants/${grantId}/revoke`, { json: { reason: 'moved' } })).status).toBe(
      201,
    );
    const after = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'granted_review', min_weight: 0.8 }]),
    });
    expect(after.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
  });
});

describe('a required capability relaxed after a stated wait', () => {
  it('queues the routing, then hands it to a reviewer lacking only that capability once the wait is over, and records it', async () => {
    const did = 'did:web:example.com:reviewers:generalist';
    await admin('PUT', `/v1/orch/reviewers/${did}`, {
      json: { display_name: 'Generalist', capabilities: { relax_general: 0.9 } },
    });
    const queued = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([
        { capability_id: 'relax_general', min_weight: 0.8 },
        { capability_id: 'relax_specialist', min_weight: 0.8, relax_after_seconds: 2 },
      ]),
    });
    expect(queued.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
    const routingId = queued.body.routing_id as string;

    const assigned = await eventually(
      () => status(routingId),
      (reply) => reply.body.status === 'in_progress',
    );
    expect(assigned.body.assigned_to).toMatchObject({ type: 'human', did });
    const record = await provenanceEntry(stack.database.db, routingId, 'escalation:1');
    expect(record).toMatchObject({
      action: 'assigned_from_queue',
      output_data: {
        to_did: did,
        capabilities_matched: [{ capability_id: 'relax_general', weight: 0.9 }],
        capabilities_relaxed: ['relax_specialist'],
      },
      reasoning: expect.stringContaining('relax_specialist was relaxed after its stated wait'),
    });
  });
});

describe('implications in routing', () => {
  const define = (as: typeof admin, name: string, implies: string[] = []) =>
    as('POST', '/v1/capabilities', { json: { capabilityId: name, name, description: name, implies } });

  it('assigns a routing requiring an implied capability to the reviewer holding the implying one', async () => {
    expect((await define(admin, 'physician_r')).status).toBe(201);
    expect((await define(admin, 'cardiologist_r', ['physician_r'])).status).toBe(201);
    const did = 'did:web:example.com:reviewers:cardiologist';
    await admin('PUT', `/v1/orch/reviewers/${did}`, {
      json: { display_name: 'Cardiologist', capabilities: { cardiologist_r: 0.9 } },
    });
    const routed = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'physician_r', min_weight: 0.8 }]),
    });
    expect(routed.status).toBe(200);
    expect(routed.body.assigned_to).toMatchObject({
      did,
      capabilities_matched: [{ capability_id: 'physician_r', weight: 0.9 }],
    });

    const tooWeak = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'physician_r', min_weight: 0.95 }]),
    });
    expect(tooWeak.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
  });

  it('offers a reviewer holding an implying capability to the routings queued for the implied one', async () => {
    expect((await define(admin, 'physician_q')).status).toBe(201);
    expect((await define(admin, 'cardiologist_q', ['physician_q'])).status).toBe(201);
    const queued = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'physician_q', min_weight: 0.8 }]),
    });
    expect(queued.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
    const did = 'did:web:example.com:reviewers:cardiologist-q';
    await admin('PUT', `/v1/orch/reviewers/${did}`, {
      json: { display_name: 'Cardiologist', capabilities: { cardiologist_q: 0.9 } },
    });
    const assigned = await eventually(
      () => status(queued.body.routing_id),
      (reply) => reply.body.status === 'in_progress',
    );
    expect(assigned.body.assigned_to).toMatchObject({ type: 'human', did });
  });

  it('lets an admin assign a queued routing to a reviewer holding an implying capability, recorded as qualified', async () => {
    expect((await define(admin, 'physician_a')).status).toBe(201);
    expect((await define(admin, 'cardiologist_a', ['physician_a'])).status).toBe(201);
    const did = 'did:web:example.com:reviewers:cardiologist-a';
    await admin('PUT', `/v1/orch/reviewers/${did}`, { json: { display_name: 'Cardiologist', capabilities: {} } });
    const queued = await admin('POST', '/v1/orch/routing', {
      json: lowConfidence([{ capability_id: 'physician_a', min_weight: 0.8 }]),
    });
    expect(queued.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
    // A grant made through the API offers nobody to the queue: the admin's choice is what assigns.
    const granted = await admin('POST', '/v1/capability-grants', {
      json: { personDID: did, capabilities: ['capability://cardiologist_a'], weight: 0.9 },
    });
    expect(granted.status).toBe(201);

    const reply = await admin('POST', `/v1/orch/routing/${queued.body.routing_id}/assign`, {
      json: { reviewer_did: did, reason: 'on call' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.assigned_to).toMatchObject({
      did,
      capabilities: [{ capability_id: 'physician_a', weight: 0.9 }],
    });
    const record = await provenanceEntry(stack.database.db, queued.body.routing_id, 'escalation:1');
    expect(record).toMatchObject({
      action: 'assigned_by_admin',
      output_data: { qualified: true, capabilities_matched: [{ capability_id: 'physician_a', weight: 0.9 }] },
    });
    expect(record?.reasoning).toEqual(expect.not.stringContaining('does not hold'));
  });

  it('never applies another organization’s implications, and applies each organization’s own', async () => {
    const org = await admin('POST', '/v1/organizations', {
      token: await stack.token(['cloud:admin:global'], 'operator'),
      json: { org_did: 'did:web:implications.example', name: 'Implications' },
    });
    expect(org.status).toBe(201);
    const other = client(
      stack.baseUrl,
      await stack.token(['orch:admin', 'orch:write', 'orch:read', 'platform:admin'], 'bob', org.body.organization_id),
    );
    // The other organization's gp_r implies generalist_r; the default organization's gp_r implies nothing.
    expect((await define(other, 'gp_r', ['generalist_r'])).status).toBe(201);
    expect((await define(admin, 'gp_r')).status).toBe(201);
    const did = 'did:web:example.com:reviewers:gp';
    for (const as of [admin, other])
      await as('PUT', `/v1/orch/reviewers/${did}`, { json: { display_name: 'GP', capabilities: { gp_r: 0.9 } } });
    const needs = [{ capability_id: 'generalist_r', min_weight: 0.5 }];

    const here = await admin('POST', '/v1/orch/routing', { json: lowConfidence(needs) });
    expect(here.body).toMatchObject({ assigned_to: null, queued: { reason: 'no_qualified_reviewer' } });
    const there = await other('POST', '/v1/orch/routing', { json: lowConfidence(needs) });
    expect(there.body.assigned_to).toMatchObject({
      did,
      capabilities_matched: [{ capability_id: 'generalist_r', weight: 0.9 }],
    });
  });
});
