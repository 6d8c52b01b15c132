import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HandoffError, type Handoff } from '@handoff/sdk';
import { z } from 'zod';

const unit = z.number().min(0).max(1);
const agentId = z
  .string()
  .min(1)
  .optional()
  .describe('The calling agent’s id (X-Agent-ID); leave out when the token is the agent’s own API key');
const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(3600)
  .optional()
  .describe(
    'Wait this long for the human’s decision before answering (long-polls, no polling); 0 or left out: answer at once with a handle to wait on later',
  );

/** A tool's answer: the API's JSON as text and as structured content; a refusal as an error result with its RFC 9457 problem. */
async function answer(work: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: { ...result } };
  } catch (error) {
    if (!(error instanceof HandoffError)) throw error;
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: JSON.stringify({ status: error.status, problem: error.problem ?? error.message }, null, 2),
        },
      ],
    };
  }
}

function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  throw new HandoffError(result.response.status, result.error as ConstructorParameters<typeof HandoffError>[1]);
}

const headerFor = (agent: string | undefined) => (agent ? { 'x-agent-id': agent } : {});

/** An MCP server whose tools are the agent operations of Handoff, called through the SDK with the agent's token. */
export function createHandoffMcpServer(handoff: Handoff): McpServer {
  const server = new McpServer({ name: 'handoff', version: '0.1.0' });
  const { client } = handoff;

  server.registerTool(
    'route_task',
    {
      description:
        'Ask Handoff who handles a task: the agent alone, or a human (below 0.70 confidence a human takes over: the Fourth Law). Answers the decision and ' +
        'its routing_id; with wait_seconds it also waits for the human’s decision on the task (decision_state: status completed with the resolution, or still ' +
        'in_progress), which your agent API key alone may do.',
      inputSchema: {
        task_id: z
          .string()
          .min(1)
          .describe('Your own id for the task; routing it again answers with its first decision'),
        task_type: z.string().min(1).optional(),
        confidence: unit.describe('Your confidence that you can handle the task, 0 to 1'),
        can_handle: z.boolean().optional(),
        uncertainty_reason: z.string().optional(),
        escalation_recommendation: z.boolean().optional().describe('You ask for a human'),
        human_context: z.string().optional().describe('What the human who takes over should know'),
        ai_recommendation: z.string().optional(),
        context: z.record(z.string(), z.unknown()).optional(),
        required_capabilities: z.array(z.object({ capability_id: z.string(), min_weight: unit.optional() })).optional(),
        agent_id: agentId,
        wait_seconds: waitSeconds,
      },
    },
    (args) =>
      answer(async () => {
        const { agent_id, wait_seconds, confidence, can_handle, uncertainty_reason, ...task } = args;
        const body = { ...task, ai_assessment: { confidence, can_handle, uncertainty_reason } };
        const decision = unwrap(await client.POST('/v1/orch/route', { body, params: { header: headerFor(agent_id) } }));
        if (!wait_seconds || decision.routing_decision === 'ai_autonomous') return decision;
        const own = { task_id: task.task_id, ...(agent_id ? { agent_id } : {}) };
        return { ...decision, decision_state: await handoff.waitForDecision(own, { timeoutSeconds: wait_seconds }) };
      }),
  );

  server.registerTool(
    'request_approval',
    {
      description:
        'Ask a human to approve an action before you take it. With wait_seconds, waits for the answer (status approved, rejected, cancelled, expired, or ' +
        'still pending when the wait ended); without, answers the pending request at once: its id is the handle to wait on with wait_for_decision.',
      inputSchema: {
        action_description: z.string().min(1),
        requester_passport_id: z.string().describe('Your DID (the requester)'),
        approver_passport_id: z
          .string()
          .optional()
          .describe('The DID of the person who must answer; left out, anyone signed in may'),
        org_did: z.string().optional(),
        task_id: z.string().optional(),
        agent_id: z.string().optional(),
        request_data: z
          .record(z.string(), z.unknown())
          .optional()
          .describe('What is to be approved (amount, irreversible, …: read for risk)'),
        expires_in_seconds: z.number().int().positive().optional(),
        wait_seconds: waitSeconds,
      },
    },
    (args) =>
      answer(async () => {
        const { wait_seconds, ...request } = args;
        const approval = await handoff.requestApproval(request);
        return wait_seconds
          ? handoff.waitForDecision({ approval_id: approval.id }, { timeoutSeconds: wait_seconds })
          : approval;
      }),
  );

  server.registerTool(
    'wait_for_decision',
    {
      description:
        'Wait for the human’s decision on a task you routed (task_id: your agent API key suffices), a routing (routing_id: needs orch:read) or an approval ' +
        '(approval_id); answers its state when decided or when the wait ends.',
      inputSchema: {
        task_id: z.string().min(1).optional().describe('Your own id of a task you routed with route_task'),
        routing_id: z.string().optional(),
        approval_id: z.string().optional(),
        wait_seconds: z.number().int().min(0).max(3600).default(60),
        agent_id: agentId,
      },
    },
    ({ task_id, routing_id, approval_id, wait_seconds, agent_id }) => {
      if (task_id)
        return answer(() =>
          handoff.waitForDecision({ task_id, ...(agent_id ? { agent_id } : {}) }, { timeoutSeconds: wait_seconds }),
        );
      if (routing_id) return answer(() => handoff.waitForDecision({ routing_id }, { timeoutSeconds: wait_seconds }));
      if (approval_id) return answer(() => handoff.waitForDecision({ approval_id }, { timeoutSeconds: wait_seconds }));
      return {
        isError: true,
        content: [{ type: 'text', text: 'Name the task_id, the routing_id or the approval_id to wait on' }],
      };
    },
  );

  server.registerTool(
    'check_boundaries',
    {
      description:
        'May you take this action, for this amount, alone? If not, which approval tier must approve it. Records nothing.',
      inputSchema: {
        action: z.string().min(1),
        amount: z.number().optional(),
        domain: z.string().optional(),
        agent_id: agentId,
      },
    },
    ({ agent_id, ...query }) =>
      answer(async () =>
        unwrap(await client.GET('/v1/orch/boundaries', { params: { query, header: headerFor(agent_id) } })),
      ),
  );

  server.registerTool(
    'report_confidence',
    {
      description:
        'Report your confidence on a running task. Below 0.70 a human takes over: then the answer is an error naming who (do not act alone).',
      inputSchema: {
        task_id: z.string().min(1),
        confidence: unit,
        proceed_autonomously: z.boolean().optional(),
        reason: z.string().optional(),
        agent_id: agentId,
      },
    },
    ({ agent_id, ...report }) =>
      answer(async () => handoff.reportConfidence(report, agent_id ? { agentId: agent_id } : {})),
  );

  server.registerTool(
    'log_provenance',
    {
      description:
        'Record an action you took in the task’s provenance (its decision chain in the ledger), with your reasoning.',
      inputSchema: {
        task_id: z.string().min(1),
        action: z.string().min(1),
        reasoning: z.string().min(1),
        input_data: z.record(z.string(), z.unknown()).optional(),
        output_data: z.record(z.string(), z.unknown()).optional(),
        instance_id: z.string().optional(),
        agent_id: agentId,
      },
    },
    ({ agent_id, ...record }) =>
      answer(async () =>
        unwrap(await client.POST('/v1/orch/provenance', { body: record, params: { header: headerFor(agent_id) } })),
      ),
  );
  return server;
}
