import { matchCapability } from '../../domain/executions/agent-calls';
import { agentForLegacyCall } from '../../services/platform-agents/registry';
import type { PlatformServiceDeps } from '../../services/approvals/approvals';
import { callAgent, callAgentByUri, type CallOutcome } from '../../services/executions/call';
import { executionView } from '../../services/executions/view';
import { principalDid, resourceId } from '../../lib/ids';
import { Problem } from '../problem';
import type { RouteGroup } from '../route-group';
import { AgentCallSchema, AgentIdParamsSchema, LegacyAgentCallSchema } from '../schemas/platform-agents';
import { AgentCallResponseSchema } from '../schemas/executions';

function accepted(outcome: CallOutcome) {
  if (outcome.ok) {
    const body = { ...executionView(outcome.execution), approval_required: outcome.approval_required };
    return { status: 202, body, headers: { Location: `/v1/executions/${body.id}` } };
  }
  if (outcome.code === 'invalid')
    throw new Problem('validation_failed', 'The call cannot be made as given', { errors: outcome.errors });
  throw new Problem(outcome.code, outcome.detail);
}

const CALL_RESPONSES = {
  202: {
    description: 'The execution, queued (waiting for its approval when approval_required)',
    schema: AgentCallResponseSchema,
    headers: { Location: { description: 'The execution to poll' } },
  },
  404: { description: 'No such agent' },
  422: {
    description:
      'The agent is inactive, does not offer the capability, or a callback_url needs a callback signing secret',
  },
};

/** The agent invocation gateway, and the legacy call by agent id that maps onto it (in the agents' group). */
export function registerAgentCallRoutes(agents: RouteGroup, deps: PlatformServiceDeps): void {
  registerUnifiedCall(agents, deps);
  registerLegacyCall(agents, deps);
}

function registerUnifiedCall(agents: RouteGroup, deps: PlatformServiceDeps): void {
  agents.route({
    method: 'post',
    path: '/v1/agents/call',
    operationId: 'callAgent',
    summary: 'Unified agent invocation gateway',
    description:
      'Matches the capability against the agent’s, evaluates the call’s risk from its parameters and the agent’s policy. When the policy ' +
      'requires it, an approval request is created first and the execution waits for it; the execution is then queued, the agent invoked at ' +
      'its endpoint with retries, and the outcome POSTed to callback_url (signed) when given. Poll the execution at Location.',
    auth: 'platform:write',
    request: { body: AgentCallSchema },
    responses: CALL_RESPONSES,
    handler: async ({ req, body, principal }) => {
      const execution_id = resourceId('exe', principal.id, req.get('idempotency-key'));
      const { agentUri, capabilityUri, ...call } = body;
      return accepted(
        await callAgentByUri(
          deps,
          { execution_id, requested_by: principal.id, organization_id: principal.organization_id },
          agentUri,
          { ...call, capability_uri: capabilityUri },
        ),
      );
    },
  });
}

function registerLegacyCall(agents: RouteGroup, deps: PlatformServiceDeps): void {
  agents.route({
    method: 'post',
    path: '/v1/agents/{agent_id}/call',
    operationId: 'callAgentById',
    summary: 'Legacy call of an agent by id (use /v1/agents/call)',
    description:
      'Maps onto the unified gateway: the agent is the version deployed to production (else this one), the capability is `task` (a capability ' +
      'URI or one of the agent’s capability names), the requester is the caller, and the deployment’s parameters are defaults.',
    auth: 'platform:write',
    request: { params: AgentIdParamsSchema, body: LegacyAgentCallSchema },
    responses: CALL_RESPONSES,
    handler: async ({ req, params, body, principal }) => {
      const target = await agentForLegacyCall(deps.db, principal.organization_id, params.agent_id);
      if (!target) throw new Problem('agent_not_found', `No agent ${params.agent_id}`);
      const capability =
        matchCapability(
          target.agent.capabilities,
          body.task.startsWith('capability://') ? body.task : `capability://${body.task}`,
        ) ?? body.task;
      const execution_id = resourceId('exe', principal.id, req.get('idempotency-key'));
      return accepted(
        await callAgent(
          deps,
          { execution_id, requested_by: principal.id, organization_id: principal.organization_id },
          target.agent,
          {
            capability_uri: capability,
            passport: principalDid(principal.id),
            parameters: { ...target.defaults, ...body.parameters },
            callback_url: body.callback_url,
          },
        ),
      );
    },
  });
}
