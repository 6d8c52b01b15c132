import { registerAgent, taskId } from '../support/agents';
import { call, client, expectProblem, type CallResult } from '../support/http';
import { resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;
let agent: { agent_id: string; api_key: string };
let as: ReturnType<typeof client>;
let otherAgent: ReturnType<typeof client>;
let foreignAgent: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  agent = await registerAgent(admin);
  as = client(stack.baseUrl, agent.api_key);
  otherAgent = client(stack.baseUrl, (await registerAgent(admin)).api_key);
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:beta.example', name: 'Beta' },
  });
  expect(created.status).toBe(201);
  const adminB = client(stack.baseUrl, await stack.token(['orch:admin'], 'bob', created.body.organization_id));
  foreignAgent = client(stack.baseUrl, (await registerAgent(adminB)).api_key);
});

const ADA = 'did:web:handoff.local:reviewers:ada';
const lowConfidence = (task_id: string) => ({
  task_id,
  task_type: 'medical_diagnosis',
  ai_assessment: { can_handle: true, confidence: 0.62 },
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
});

/** Routes a task below 0.70 with the agent's key: a human (Ada) takes it over. */
async function escalatedTask(task_id = taskId('wait')): Promise<{ task_id: string; routing_id: string }> {
  const routed = await as('POST', '/v1/orch/route', { json: lowConfidence(task_id) });
  expect(routed.body).toMatchObject({ routing_decision: 'escalate_to_human', assigned_human: ADA });
  return { task_id, routing_id: routed.body.routing_id };
}

const taskPath = (task_id: string, wait?: number) =>
  `/v1/orch/route/${encodeURIComponent(task_id)}${wait === undefined ? '' : `?wait=${wait}`}`;

function timed(reply: Promise<CallResult>): Promise<CallResult & { at: number }> {
  return reply.then((result) => ({ ...result, at: Date.now() }));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/orch/route/{task_id}', () => {
  it('lets an agent wait with its own key for the human’s decision on its task', async () => {
    const { task_id, routing_id } = await escalatedTask();
    // The routing's own read needs orch:read, which an agent key does not hold.
    expectProblem(await as('GET', `/v1/orch/routing/${routing_id}?wait=1`), 403, 'insufficient_scope');

    const waiting = timed(as('GET', taskPath(task_id, 20)));
    await pause(300);
    expect((await resolveAs(stack, routing_id, ADA, { outcome: 'approved', comment: 'MRI is right' })).status).toBe(
      200,
    );
    const resolvedAt = Date.now();
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      routing_id,
      status: 'completed',
      decision: 'escalate_to_human',
      resolution: { reviewer_did: ADA, outcome: 'approved', comment: 'MRI is right' },
    });
    expect(answer.at - resolvedAt).toBeLessThan(5000);
    // The same body as the routing's read.
    expect(answer.body).toEqual((await admin('GET', `/v1/orch/routing/${routing_id}`)).body);
  });

  it('answers the task as it is, at once without a wait and when a wait ends first', async () => {
    const { task_id, routing_id } = await escalatedTask();
    expect((await as('GET', taskPath(task_id))).body).toMatchObject({
      routing_id,
      status: 'in_progress',
      assigned_to: { type: 'human', did: ADA },
    });
    const startedAt = Date.now();
    const still = await as('GET', taskPath(task_id, 1));
    expect(still.body).toMatchObject({ routing_id, status: 'in_progress' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
  });

  it('finds a task id with reserved characters, sent encoded', async () => {
    const { task_id, routing_id } = await escalatedTask(`case 7/ward B?${taskId()}`);
    expect((await as('GET', taskPath(task_id))).body).toMatchObject({ routing_id });
  });

  it('is 404 for another agent’s key, as for a task the agent never routed', async () => {
    const { task_id } = await escalatedTask();
    expectProblem(await otherAgent('GET', taskPath(task_id)), 404, 'routing_not_found');
    expectProblem(await otherAgent('GET', taskPath(task_id, 1)), 404, 'routing_not_found');
    expectProblem(await as('GET', taskPath(taskId('never-routed'))), 404, 'routing_not_found');
  });

  it('is 404 for another organization’s agent', async () => {
    const { task_id } = await escalatedTask();
    expectProblem(await foreignAgent('GET', taskPath(task_id)), 404, 'routing_not_found');
  });

  it('reads for the agent an orch:write caller names in X-Agent-ID, and for no other', async () => {
    const { task_id, routing_id } = await escalatedTask();
    expect((await admin('GET', taskPath(task_id), { headers: { 'x-agent-id': agent.agent_id } })).body).toMatchObject({
      routing_id,
    });
    expectProblem(await admin('GET', taskPath(task_id)), 400, 'validation_failed');
    expectProblem(
      await as('GET', taskPath(task_id), { headers: { 'x-agent-id': 'urn:test:agent:someone:else' } }),
      403,
      'agent_id_mismatch',
    );
  });

  it('refuses a caller without a key, and a wait longer than a minute', async () => {
    const { task_id } = await escalatedTask();
    expectProblem(await call(stack.baseUrl, 'GET', taskPath(task_id)), 401, 'unauthorized');
    expectProblem(await as('GET', taskPath(task_id, 61)), 400, 'validation_failed');
  });
});
