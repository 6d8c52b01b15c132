import { createHash } from 'node:crypto';
import { registerAgent, taskId } from '../support/agents';
import { call, client, expectProblem } from '../support/http';
import { eventKinds, provenanceEntry } from '../support/ledger-records';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
});

const route = (token: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  call(stack.baseUrl, 'POST', '/v1/orch/route', {
    token,
    headers,
    json: { task_id: taskId(), task_type: 'summarize', ai_assessment: { confidence: 0.9 }, ...body },
  });

describe('POST /v1/orch/agents/register', () => {
  it('registers an agent with a DID and an API key shown once, stored only as its hash, with provenance and agent.registered', async () => {
    const reply = await admin('POST', '/v1/orch/agents/register', {
      json: {
        agent_id: 'urn:acme:agent:diagnosis:reg-1',
        agent_name: 'Diagnosis assistant',
        agent_type: 'diagnosis',
        capabilities: [{ capability_id: 'medical_diagnosis', confidence_level: 0.85 }],
        safety_constraints: { cannot_prescribe: true, requires_human_confirmation: false, max_risk_level: 'medium' },
        model_info: { model_type: 'llm', version: '2026-10', training_data: 'clinical notes' },
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.body).toMatchObject({
      agent_id: 'urn:acme:agent:diagnosis:reg-1',
      did: 'did:web:handoff.local:agents:urn%3Aacme%3Aagent%3Adiagnosis%3Areg-1',
      status: 'active',
      safety_boundaries_configured: 2,
      monitoring_enabled: true,
      api_key: expect.stringMatching(/^hnd_ak_[A-Za-z0-9_-]{43}$/),
    });
    const row = await stack.database.db('agents').where({ agent_id: 'urn:acme:agent:diagnosis:reg-1' }).first();
    expect(row.api_key_hash).toBe(createHash('sha256').update(reply.body.api_key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(reply.body.api_key);

    expect(await provenanceEntry(stack.database.db, 'urn:acme:agent:diagnosis:reg-1', 'registered')).toMatchObject({
      action: 'agent_registered',
      output_data: { status: 'active' },
    });
    expect(await eventKinds(stack.database.db, 'urn:acme:agent:diagnosis:reg-1', 'registered')).toEqual([
      'agent.registered',
    ]);

    const read = await admin('GET', `/v1/orch/agents/${encodeURIComponent('urn:acme:agent:diagnosis:reg-1')}`);
    expect(read.status).toBe(200);
    expect(read.body.api_key).toBeUndefined();
  });

  it('honours Idempotency-Key: a retry gets the first answer, its API key included, which the stored answer keeps only sealed', async () => {
    const key = `register-${Date.now()}`;
    const register = (json: Record<string, unknown>) =>
      admin('POST', '/v1/orch/agents/register', { json, headers: { 'idempotency-key': key } });
    const first = await register({ agent_name: 'Retried', agent_type: 'triage' });
    expect(first.status).toBe(201);
    const retry = await register({ agent_name: 'Retried', agent_type: 'triage' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('cache-control')).toBe('no-store');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.body).toEqual(first.body);
    expect(await stack.database.db('agents').where({ agent_name: 'Retried' }).pluck('agent_id')).toEqual([
      first.body.agent_id,
    ]);
    // The key works, and the idempotency record holds it only sealed.
    expect((await route(retry.body.api_key)).status).toBe(200);
    const stored = await stack.database.db('idempotency_keys').where({ idempotency_key: key }).first();
    expect(JSON.stringify(stored)).not.toContain(first.body.api_key);

    expectProblem(await register({ agent_name: 'Another', agent_type: 'triage' }), 409, 'idempotency_key_reused');
  });

  it('mints a URN when none is given', async () => {
    const reply = await admin('POST', '/v1/orch/agents/register', {
      json: { agent_name: 'Minted', agent_type: 'triage' },
    });
    expect(reply.body.agent_id).toMatch(/^urn:handoff:agent:triage:[0-9a-f]{16}$/);
  });

  it('refuses a second registration of the same id (409), bad input (400), and a non-admin (403)', async () => {
    await registerAgent(admin, { agent_id: 'urn:acme:agent:x:dup' });
    expectProblem(
      await admin('POST', '/v1/orch/agents/register', {
        json: { agent_id: 'urn:acme:agent:x:dup', agent_name: 'x', agent_type: 'x' },
      }),
      409,
      'agent_exists',
    );
    const bad = await admin('POST', '/v1/orch/agents/register', {
      json: {
        agent_id: 'agent-7',
        agent_name: '',
        agent_type: 'X Y',
        safety_constraints: { max_risk_level: 'extreme' },
      },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'agent_id',
      'agent_name',
      'agent_type',
      'safety_constraints.max_risk_level',
    ]);
    const writer = await stack.token(['orch:write']);
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/orch/agents/register', {
        token: writer,
        json: { agent_name: 'x', agent_type: 'x' },
      }),
      403,
      'insufficient_scope',
    );
  });
});

describe('how an agent authenticates', () => {
  it('calls the agent operations with its own API key, and nothing else', async () => {
    const { agent_id, api_key } = await registerAgent(admin);
    const routed = await route(api_key);
    expect(routed.status).toBe(200);
    expect(routed.body.routing_decision).toBe('ai_autonomous');
    const row = await stack.database.db('routings').where({ routing_id: routed.body.routing_id }).first();
    expect(row).toMatchObject({ ai_agent_id: agent_id, requested_by: `agent:${agent_id}` });

    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/orch/routing/history', { token: api_key }),
      403,
      'insufficient_scope',
    );
    expectProblem(
      await call(stack.baseUrl, 'POST', '/v1/orch/routing', { token: api_key, json: { ai_confidence: 0.9 } }),
      403,
      'insufficient_scope',
    );
  });

  it('refuses an X-Agent-ID that names another agent than the key', async () => {
    const { api_key } = await registerAgent(admin);
    const other = await registerAgent(admin);
    expectProblem(await route(api_key, { 'x-agent-id': other.agent_id }), 403, 'agent_id_mismatch');
  });

  it('lets an orch:write token speak for the agent named in X-Agent-ID', async () => {
    const { agent_id } = await registerAgent(admin);
    const writer = await stack.token(['orch:write']);
    const reply = await route(writer, { 'x-agent-id': agent_id });
    expect(reply.status).toBe(200);
  });

  it('answers agent_not_registered for an unknown agent, and 400 without or with a malformed X-Agent-ID', async () => {
    const writer = await stack.token(['orch:write']);
    const unknown = await route(writer, { 'x-agent-id': 'urn:acme:agent:ghost:1' });
    expectProblem(unknown, 403, 'agent_not_registered');
    expect(unknown.body.detail).toContain('urn:acme:agent:ghost:1');
    const missing = await route(writer);
    expectProblem(missing, 400, 'validation_failed');
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'header.x-agent-id' })]);
    const malformed = await route(writer, { 'x-agent-id': 'ghost' });
    expectProblem(malformed, 400, 'validation_failed');
    expect(malformed.body.errors).toEqual([expect.objectContaining({ field: 'header.x-agent-id' })]);
  });

  it('shuts a suspended agent out at once, both by key and by X-Agent-ID, and lets it back in', async () => {
    const { agent_id, api_key } = await registerAgent(admin);
    const path = `/v1/orch/agents/${encodeURIComponent(agent_id)}`;
    const suspended = await admin('PATCH', path, { json: { status: 'suspended' } });
    expect(suspended.body).toMatchObject({ status: 'suspended' });
    expectProblem(await route(api_key), 401, 'unauthorized');
    const byHeader = await route(await stack.token(['orch:write']), { 'x-agent-id': agent_id });
    expectProblem(byHeader, 403, 'agent_not_registered');
    expect(byHeader.body.detail).toContain('suspended');
    await admin('PATCH', path, { json: { status: 'active' } });
    expect((await route(api_key)).status).toBe(200);
  });

  it('rotates the key: the new one works, the old one no longer does', async () => {
    const { agent_id, api_key } = await registerAgent(admin);
    const rotated = await admin('POST', `/v1/orch/agents/${encodeURIComponent(agent_id)}/api-key`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_key).not.toBe(api_key);
    expectProblem(await route(api_key), 401, 'unauthorized');
    expect((await route(rotated.body.api_key)).status).toBe(200);
  });
});

describe('reading and changing agents', () => {
  it('lists agents with filters and cursor pagination', async () => {
    for (let i = 0; i < 3; i += 1) await registerAgent(admin, { agent_type: 'lister' });
    const first = await admin('GET', '/v1/orch/agents?agent_type=lister&limit=2&sort=agent_id');
    expect(first.body).toMatchObject({ has_more: true, total_count: 3 });
    const second = await admin(
      'GET',
      `/v1/orch/agents?agent_type=lister&limit=2&sort=agent_id&cursor=${first.body.next_cursor}`,
    );
    expect(second.body).toMatchObject({ has_more: false, total_count: 3 });
    const ids = [...first.body.data, ...second.body.data].map((a: { agent_id: string }) => a.agent_id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(3);
  });

  it('changes safety constraints with a provenance record, and 404s an unknown agent', async () => {
    const { agent_id } = await registerAgent(admin);
    const changed = await admin('PATCH', `/v1/orch/agents/${encodeURIComponent(agent_id)}`, {
      json: { safety_constraints: { cannot_prescribe: true } },
    });
    expect(changed.body).toMatchObject({
      safety_constraints: { cannot_prescribe: true },
      safety_boundaries_configured: 1,
    });
    expect((await provenanceEntry(stack.database.db, agent_id, 'updated:v2'))?.input_data).toEqual({
      safety_constraints: { cannot_prescribe: true },
    });
    expectProblem(
      await admin('PATCH', '/v1/orch/agents/urn:acme:agent:none:0', { json: { status: 'retired' } }),
      404,
      'agent_not_found',
    );
    expectProblem(
      await admin('PATCH', `/v1/orch/agents/${encodeURIComponent(agent_id)}`, { json: {} }),
      400,
      'validation_failed',
    );
  });
});
