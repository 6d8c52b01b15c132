import { startExtraApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, client, expectProblem } from '../support/http';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { mintPersonalAccessToken } from '../../services/identity/issuance/access-tokens';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;
/** A supervisor, signed in: who escalates by hand. */
let lead: SignedInPerson;
let asLead: ReturnType<typeof client>;

// Reviewers of this file's own capability, so that the dev reviewers' load does not enter into it.
const FIRST = 'did:web:example.com:reviewers:first';
const SECOND = 'did:web:example.com:reviewers:second';
const SENIOR = 'did:web:example.com:reviewers:senior';
const SPECIALIST = 'did:web:example.com:reviewers:specialist';

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  lead = await signedInPerson(stack, { name: 'Lead' });
  asLead = client(stack.baseUrl, lead.sessionToken);
  await admin('PUT', `/v1/orch/reviewers/${FIRST}`, {
    json: { display_name: 'First', capabilities: { claims: 0.8 }, capacity: 2 },
  });
  await admin('PUT', `/v1/orch/reviewers/${SECOND}`, {
    json: { display_name: 'Second', capabilities: { claims: 0.9 } },
  });
  await admin('PUT', `/v1/orch/reviewers/${SENIOR}`, {
    json: { display_name: 'Senior', capabilities: { claims: 0.95 }, chain_level: 2 },
  });
  await admin('PUT', `/v1/orch/reviewers/${SPECIALIST}`, {
    json: { display_name: 'Specialist', capabilities: { claims: 0.9, fraud: 0.9 }, chain_level: 3 },
  });
});

const byLead = () => ({
  type: 'human',
  did: lead.did,
  passport_id: lead.passport_id,
  credential: { type: 'device_key', id: lead.kid },
});
const claim = () =>
  admin('POST', '/v1/orch/routing', {
    json: {
      task_type: 'claim',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'claims', min_weight: 0.7 }],
    },
  });
const loads = async () => {
  const reply = await admin('GET', '/v1/orch/reviewers?capability=claims&sort=did');
  return Object.fromEntries(
    reply.body.data.map((r: { did: string; open_assignments: number }) => [r.did, r.open_assignments]),
  );
};

describe('reviewer load', () => {
  it('assigns the least-loaded qualified reviewer, skips one at capacity, and releases on resolution', async () => {
    const assigned: string[] = [];
    for (let i = 0; i < 5; i += 1) assigned.push((await claim()).body.assigned_to.did);
    // First-line reviewers take turns by load; First stops at its capacity of 2.
    expect(assigned.filter((did) => did === FIRST)).toHaveLength(2);
    expect(assigned.filter((did) => did === SECOND)).toHaveLength(3);
    expect(await loads()).toMatchObject({ [FIRST]: 2, [SECOND]: 3, [SENIOR]: 0 });

    const next = await claim();
    expect(next.body.assigned_to.did).toBe(SECOND);
    await resolveAs(stack, next.body.routing_id, SECOND, { outcome: 'approved' });
    expect((await loads())[SECOND]).toBe(3);
  });
});

describe('POST /v1/orch/escalation/manual', () => {
  it('moves a routing to a reviewer holding the target capability, with the escalation chain, and moves the load with it', async () => {
    const routed = await claim();
    const before = await loads();
    const reply = await asLead('POST', '/v1/orch/escalation/manual', {
      json: {
        routing_id: routed.body.routing_id,
        escalation_reason: 'possible fraud',
        requested_by: lead.did,
        target_capability: 'fraud',
        urgency: 'urgent',
        context: { note: 'pattern match' },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      escalation_id: expect.stringMatching(/^esc_/),
      status: 'assigned',
      assigned_to: {
        type: 'human',
        did: SPECIALIST,
        capabilities: [
          { capability_id: 'claims', weight: 0.9 },
          { capability_id: 'fraud', weight: 0.9 },
        ],
      },
      estimated_response_time: 3600,
      escalation_level: 'urgent',
      escalation_chain: [
        { level: 1, did: routed.body.assigned_to.did, timestamp: expect.any(String) },
        { level: 2, did: SPECIALIST, timestamp: expect.any(String) },
      ],
    });
    const after = await loads();
    expect(after[SPECIALIST]).toBe(before[SPECIALIST] + 1);
    expect(after[routed.body.assigned_to.did]).toBe(before[routed.body.assigned_to.did] - 1);
    expect((await provenanceEntry(stack.database.db, routed.body.routing_id, 'escalation:2'))?.actor).toEqual(byLead());
    const status = await admin('GET', `/v1/orch/routing/${routed.body.routing_id}`);
    expect(status.body).toMatchObject({
      status: 'in_progress',
      escalation_level: 'urgent',
      assigned_to: { did: SPECIALIST },
    });
  });

  it('moves up the chain without a target', async () => {
    const routed = await claim();
    const reply = await asLead('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: routed.body.routing_id, escalation_reason: 'second opinion', requested_by: lead.did },
    });
    expect(reply.body).toMatchObject({ assigned_to: { did: SENIOR }, escalation_level: 'medium' });
  });

  it('answers 422 without a qualified reviewer, 409 for a routing that is done, 404 for none, 400 for bad input', async () => {
    const routed = await claim();
    expectProblem(
      await asLead('POST', '/v1/orch/escalation/manual', {
        json: {
          routing_id: routed.body.routing_id,
          escalation_reason: 'x',
          requested_by: lead.did,
          target_capability: 'astrophysics',
        },
      }),
      422,
      'no_qualified_reviewer',
    );
    const resolved = await claim();
    await resolveAs(stack, resolved.body.routing_id, resolved.body.assigned_to.did, { outcome: 'approved' });
    expectProblem(
      await asLead('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: resolved.body.routing_id, escalation_reason: 'x', requested_by: lead.did },
      }),
      409,
      'routing_closed',
    );
    expectProblem(
      await asLead('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: 'rt_00000000-0000-0000-0000-000000000000', escalation_reason: 'x', requested_by: lead.did },
      }),
      404,
      'routing_not_found',
    );
    expectProblem(
      await asLead('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: routed.body.routing_id, escalation_reason: '', requested_by: 'lead' },
      }),
      400,
      'validation_failed',
    );
  });

  it('reopens a completed autonomous routing for review within the review window, and the chain runs to its resolution', async () => {
    const routed = await admin('POST', '/v1/orch/routing', {
      json: { task_type: 'claim', ai_confidence: 0.95, required_capabilities: ['claims'] },
    });
    expect(routed.body.decision).toBe('ai_autonomous');
    expect((await admin('GET', `/v1/orch/routing/${routed.body.routing_id}`)).body.status).toBe('completed');

    const reply = await asLead('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: routed.body.routing_id, escalation_reason: 'the refund looks wrong', requested_by: lead.did },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'assigned',
      assigned_to: { type: 'human' },
      escalation_chain: [{ level: 1 }],
    });
    expect((await admin('GET', `/v1/orch/routing/${routed.body.routing_id}`)).body).toMatchObject({
      status: 'in_progress',
      assigned_to: { did: reply.body.assigned_to.did },
    });
    expect((await provenanceEntry(stack.database.db, routed.body.routing_id, 'escalation:1'))?.actor).toEqual(byLead());
    const resolved = await resolveAs(stack, routed.body.routing_id, reply.body.assigned_to.did, {
      outcome: 'rejected',
      comment: 'refund reversed',
    });
    expect(resolved.status).toBe(200);
  });

  it('answers 409 naming the review window once it has closed', async () => {
    const shortWindow = await startExtraApp(stack, { config: { ROUTING_REVIEW_WINDOW_SECONDS: 1 } });
    try {
      const viaShort = client(shortWindow.baseUrl, await stack.token());
      const leadViaShort = client(shortWindow.baseUrl, lead.sessionToken);
      const routed = await viaShort('POST', '/v1/orch/routing', { json: { ai_confidence: 0.95 } });
      await eventually(
        async () => (await (await stack.startedWorkflow(routed.body.routing_id)).describe()).status.name,
        (status) => status === 'COMPLETED',
      );
      const late = await leadViaShort('POST', '/v1/orch/escalation/manual', {
        json: { routing_id: routed.body.routing_id, escalation_reason: 'too late', requested_by: lead.did },
      });
      expectProblem(late, 409, 'routing_closed');
      expect(late.body.detail).toContain('review window of 1 second');
      expect(late.body.detail).toContain('ROUTING_REVIEW_WINDOW_SECONDS');
    } finally {
      await shortWindow.close();
    }
  });

  it('takes any orch:write credential: a personal access token and a service account escalate, and each record names the principal', async () => {
    const pat = await mintPersonalAccessToken(stack.database.db, {
      name: 'supervisor-console',
      scopes: ['orch:write'],
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
    const routed = await claim();
    const byPat = await call(stack.baseUrl, 'POST', '/v1/orch/escalation/manual', {
      token: pat.token,
      json: { routing_id: routed.body.routing_id, escalation_reason: 'second opinion', requested_by: lead.did },
    });
    expect(byPat.status).toBe(200);
    expect(byPat.body).toMatchObject({ status: 'assigned', assigned_to: { did: SENIOR } });
    const patRecord = await provenanceEntry(stack.database.db, routed.body.routing_id, 'escalation:2');
    const patPrincipal = { kind: 'personal_access_token', id: `pat:${pat.token_id}` };
    expect(patRecord?.actor).toEqual({
      type: 'orch_core',
      did: ORCH_CORE_DID,
      instance_id: patPrincipal.id,
      principal: patPrincipal,
    });
    // The DID the body names is kept as named: nothing proves that the token's holder is that person.
    expect(patRecord?.input_data).toMatchObject({ reason: 'second opinion', requested_by_named: lead.did });

    const account = await admin('POST', '/v1/orch/service-accounts', {
      json: { name: 'supervisor-tool', scopes: ['orch:write'] },
    });
    expect(account.status).toBe(201);
    const issued = await call(stack.baseUrl, 'POST', '/oauth/token', {
      json: {
        grant_type: 'client_credentials',
        client_id: account.body.client_id,
        client_secret: account.body.client_secret,
      },
    });
    const autonomous = await admin('POST', '/v1/orch/routing', {
      json: { task_type: 'claim', ai_confidence: 0.95, required_capabilities: ['claims'] },
    });
    expect(autonomous.body.decision).toBe('ai_autonomous');
    const bySa = await call(stack.baseUrl, 'POST', '/v1/orch/escalation/manual', {
      token: issued.body.access_token,
      json: { routing_id: autonomous.body.routing_id, escalation_reason: 'the refund looks wrong' },
    });
    expect(bySa.status).toBe(200);
    expect(bySa.body).toMatchObject({ status: 'assigned', escalation_chain: [{ level: 1 }] });
    const saRecord = await provenanceEntry(stack.database.db, autonomous.body.routing_id, 'escalation:1');
    const saPrincipal = { kind: 'service_account', id: `sa:${account.body.client_id}` };
    expect(saRecord?.actor).toEqual({
      type: 'orch_core',
      did: ORCH_CORE_DID,
      instance_id: saPrincipal.id,
      principal: saPrincipal,
    });
    expect(saRecord?.input_data).not.toHaveProperty('requested_by_named');
  });

  it('names the caller’s task id as task_id in the escalation events, and the routing apart as routing_id', async () => {
    const routed = await admin('POST', '/v1/orch/routing', {
      json: { task_id: 'claim-4711', task_type: 'claim', ai_confidence: 0.5, required_capabilities: ['claims'] },
    });
    expect(routed.body.decision).toBe('escalate_to_human');
    const reply = await asLead('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: routed.body.routing_id, escalation_reason: 'second opinion' },
    });
    expect(reply.status).toBe(200);
    const events = await stack.database
      .db('outbox_events as o')
      .join('ledger_entries as p', 'p.seq', 'o.provenance_seq')
      .where('p.subject_id', routed.body.routing_id)
      .whereIn('o.event', ['routing.escalated', 'escalation.triggered'])
      .select('o.event', 'o.data', 'p.step_id');
    const ids = { task_id: 'claim-4711', routing_id: routed.body.routing_id };
    expect(events.map((e: { event: string; step_id: string }) => `${e.step_id} ${e.event}`).sort()).toEqual([
      'escalation:2 escalation.triggered',
      'routing_decision escalation.triggered',
      'routing_decision routing.escalated',
    ]);
    for (const event of events) expect(event.data).toMatchObject(ids);

    const untracked = await claim();
    const decided = await stack.database
      .db('outbox_events as o')
      .join('ledger_entries as p', 'p.seq', 'o.provenance_seq')
      .where({ 'p.subject_id': untracked.body.routing_id, 'o.event': 'routing.escalated' })
      .first('o.data');
    expect(decided.data).toMatchObject({ task_id: null, routing_id: untracked.body.routing_id });
  });

  it('escalates an autonomous routing in escalation mode while its window is open', async () => {
    const routed = await admin('POST', '/v1/orch/routing', {
      json: { task_type: 'claim', ai_confidence: 0.95, routing_mode: 'escalation', required_capabilities: ['claims'] },
    });
    expect(routed.body.decision).toBe('ai_autonomous');
    const reply = await asLead('POST', '/v1/orch/escalation/manual', {
      json: { routing_id: routed.body.routing_id, escalation_reason: 'customer complaint', requested_by: lead.did },
    });
    expect(reply.body).toMatchObject({ status: 'assigned', escalation_chain: [{ level: 1 }] });
    expect(await eventKinds(stack.database.db, routed.body.routing_id, 'escalation:1')).toEqual([
      'escalation.triggered',
      'routing.escalated',
    ]);
  });
});
