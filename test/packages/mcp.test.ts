import type { Server } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp } from '@handoff/mcp';
import { registerAgent, taskId } from '../support/agents';
import { client } from '../support/http';
import { resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let agent: { agent_id: string; api_key: string };

const stack = useStack();
beforeAll(async () => {
  agent = await registerAgent(client(stack.baseUrl, await stack.token()));
});

const ADA = 'did:web:handoff.local:reviewers:ada';
const TOOLS = [
  'check_boundaries',
  'log_provenance',
  'report_confidence',
  'request_approval',
  'route_task',
  'wait_for_decision',
];
const lowConfidence = (task_id: string) => ({
  task_id,
  task_type: 'medical_diagnosis',
  confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
});

/** The JSON a tool answered, as an MCP client reads it. */
function resultOf(result: unknown): Record<string, unknown> {
  const called = result as CallToolResult;
  const text = called.content[0]?.type === 'text' ? called.content[0].text : '';
  return { isError: called.isError ?? false, ...(JSON.parse(text) as Record<string, unknown>) };
}

describe('handoff-mcp over stdio, with the agent’s API key', () => {
  let mcp: Client;

  beforeAll(async () => {
    mcp = new Client({ name: 'test-agent', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(__dirname, '..', '..', 'packages', 'mcp', 'src', 'cli.ts')],
      env: { PATH: process.env.PATH ?? '', HANDOFF_URL: stack.baseUrl, HANDOFF_TOKEN: agent.api_key },
      stderr: 'inherit',
    });
    await mcp.connect(transport);
  }, 60_000);
  afterAll(() => mcp?.close());

  it('lists the agent operations as tools', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    expect(tools.find((tool) => tool.name === 'route_task')?.inputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['task_id', 'confidence']),
    });
  });

  it('routes a task below 0.70 to a human, gives its routing id, and logs provenance on it', async () => {
    const task_id = taskId('mcp');
    const routed = resultOf(await mcp.callTool({ name: 'route_task', arguments: lowConfidence(task_id) }));
    expect(routed).toMatchObject({
      isError: false,
      task_id,
      routing_id: expect.stringMatching(/^rt_/),
      routing_decision: 'escalate_to_human',
      assigned_human: ADA,
      fourth_law_triggered: true,
    });

    const logged = resultOf(
      await mcp.callTool({
        name: 'log_provenance',
        arguments: { task_id, action: 'drafted_referral', reasoning: 'while the reviewer decides' },
      }),
    );
    expect(logged).toMatchObject({ isError: false, routing_id: routed.routing_id, task_id });

    const boundaries = resultOf(
      await mcp.callTool({ name: 'check_boundaries', arguments: { action: 'wire_transfer', amount: 50_000 } }),
    );
    expect(boundaries).toMatchObject({
      isError: false,
      agent_id: agent.agent_id,
      action: 'wire_transfer',
      human_approval_required: expect.any(Boolean),
    });
  });

  it('waits with the agent’s key alone for the human’s decision on a task it routed, by its task id', async () => {
    const task_id = taskId('mcp-wait');
    const routed = resultOf(await mcp.callTool({ name: 'route_task', arguments: lowConfidence(task_id) }));
    expect(routed).toMatchObject({ isError: false, routing_decision: 'escalate_to_human', assigned_human: ADA });
    const still = resultOf(await mcp.callTool({ name: 'wait_for_decision', arguments: { task_id, wait_seconds: 1 } }));
    expect(still).toMatchObject({ isError: false, routing_id: routed.routing_id, status: 'in_progress' });

    const waiting = mcp.callTool({ name: 'wait_for_decision', arguments: { task_id, wait_seconds: 30 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      (await resolveAs(stack, routed.routing_id as string, ADA, { outcome: 'rejected', comment: 'not an MRI' })).status,
    ).toBe(200);
    expect(resultOf(await waiting)).toMatchObject({
      isError: false,
      routing_id: routed.routing_id,
      status: 'completed',
      resolution: { reviewer_did: ADA, outcome: 'rejected' },
    });
  });

  it('answers a refusal as a tool error carrying the API’s problem', async () => {
    const refused = resultOf(
      await mcp.callTool({ name: 'report_confidence', arguments: { task_id: 'no-such-task', confidence: 0.9 } }),
    );
    expect(refused).toMatchObject({ isError: true, status: 404, problem: { type: '/problems/routing_not_found' } });
  });
});

describe('handoff-mcp over streamable HTTP, with each request’s bearer', () => {
  let server: Server;
  let url: URL;

  beforeAll(async () => {
    server = await serveHttp({ handoffUrl: stack.baseUrl, host: '127.0.0.1', port: 0 });
    url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function connected(token: string): Promise<Client> {
    const mcp = new Client({ name: 'test-agent', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    return mcp;
  }

  it('routes a task and waits for the human’s decision, with the agent’s API key alone', async () => {
    const mcp = await connected(agent.api_key);
    try {
      const task_id = taskId('mcp-http');
      const routing = mcp.callTool({ name: 'route_task', arguments: { ...lowConfidence(task_id), wait_seconds: 30 } });
      const routingId = await (async () => {
        for (;;) {
          const row = await stack.database
            .db('routings')
            .where({ request_id: task_id })
            .first<{ routing_id: string } | undefined>();
          if (row) return row.routing_id;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await resolveAs(stack, routingId, ADA, { outcome: 'approved', comment: 'MRI is right' })).status).toBe(
        200,
      );
      expect(resultOf(await routing)).toMatchObject({
        isError: false,
        routing_id: routingId,
        routing_decision: 'escalate_to_human',
        decision_state: {
          status: 'completed',
          resolution: { reviewer_did: ADA, outcome: 'approved', comment: 'MRI is right' },
        },
      });
    } finally {
      await mcp.close();
    }
  });

  it('refuses a request without a bearer token', async () => {
    const reply = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(reply.status).toBe(401);
  });
});
