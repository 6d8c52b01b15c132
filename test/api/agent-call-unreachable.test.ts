import { freePort } from '../../lib/net';
import { client } from '../support/http';
import { eventually } from '../support/eventually';
import { LOCAL_PARTIES_ENV } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack({ ...LOCAL_PARTIES_ENV });
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
  admin = client(stack.baseUrl, await stack.token(['platform:admin']));
});
afterAll(async () => {
  await stack?.stop();
});

describe('POST /v1/agents/call to an agent whose endpoint is down', () => {
  it('answers 202 with the queued execution at once, and the execution fails on its one attempt', async () => {
    const closed = await freePort();
    const agent = await admin('POST', '/v1/agents', {
      json: {
        agent_uri: 'agent://default/down@1.0.0',
        endpoint_url: `http://127.0.0.1:${closed}/run`,
        capabilities: ['capability://acme/summarize'],
        timeout_seconds: 1,
        max_attempts: 1,
      },
    });
    expect(agent.status).toBe(201);
    const deployed = await admin('POST', `/v1/agents/${agent.body.agent_id}/deployments`, {
      json: { environment: 'production', version: '1.0.0' },
    });
    expect(deployed.status).toBe(201);

    const accepted = await api('POST', '/v1/agents/call', {
      json: {
        agentUri: agent.body.agent_uri,
        capabilityUri: 'capability://acme/summarize',
        passport: 'did:web:acme.example:people:ada',
        parameters: {},
      },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      id: expect.stringMatching(/^exe_/),
      agent_id: agent.body.agent_id,
      max_attempts: 1,
    });
    expect(accepted.headers.get('location')).toBe(`/v1/executions/${accepted.body.id}`);

    const done = await eventually(
      () => api('GET', `/v1/executions/${accepted.body.id}`),
      (reply) => reply.body.status === 'failed',
    );
    expect(done.body).toMatchObject({ status: 'failed', current_attempt: 1, max_attempts: 1 });

    const legacy = await api('POST', `/v1/agents/${agent.body.agent_id}/call`, {
      json: { task: 'summarize', parameters: {} },
    });
    expect(legacy.status).toBe(202);
    const again = await api('POST', '/v1/agents/call', {
      json: {
        agentUri: agent.body.agent_uri,
        capabilityUri: 'capability://acme/summarize',
        passport: 'did:web:acme.example:people:ada',
        parameters: {},
      },
    });
    expect(again.status).toBe(202);
  });
});
