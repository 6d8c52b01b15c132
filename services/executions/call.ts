import { WithStartWorkflowOperation } from '@temporalio/client';
import { liveCallbackSecrets } from '../../db/callback-secrets';
import { executionFromRow, findExecutionById } from '../../db/executions';
import { findPlatformAgentByUri, type PlatformAgentRow } from '../../db/platform-agents';
import type { Knex } from 'knex';
import { checkAgentCall, matchCapability, offeredGrantName } from '../../domain/executions/agent-calls';
import { agentMatch, agentMatchName } from '../capabilities/match';
import type { PlatformSettings } from '../platform/settings';
import type { ApprovalRequest } from '../../contracts/approval';
import {
  EXECUTE_AGENT_WORKFLOW,
  executionAcceptedUpdate,
  type ExecuteAgentInput,
  type ExecuteAgentWorkflow,
  type ExecutionState,
} from '../../contracts/execute-agent';
import { AgentIdKey, PlatformStatusKey } from '../../contracts/search-attributes';
import { approvalDeadline, type FieldProblem, type PlatformServiceDeps } from '../approvals/approvals';
import { createOutboundGuard } from '../../lib/outbound/url-guard';
import { derivedId } from '../../lib/ids';
import { startWithUpdate } from '../../lib/temporal-client';
import { storageRefusal, type StorageRefusal } from '../platform/refusals';

/**
 * A call as the gateway takes it: the execution's own fields of its workflow input, the requester's DID under
 * the spec's name (`passport`), the callback by its URL only, and attempts left to the agent's default.
 */
export type AgentCall = Pick<ExecuteAgentInput, 'capability_uri' | 'parameters' | 'task_id'> &
  Partial<Pick<ExecuteAgentInput, 'max_attempts'>> & {
    passport: ExecuteAgentInput['requester_passport_id'];
    callback_url?: NonNullable<ExecuteAgentInput['callback']>['url'] | undefined;
  };

type ExecutionIds = Pick<ExecuteAgentInput, 'execution_id' | 'requested_by'> & { organization_id: string };

/** The approval an execution asks for before the caller is known: its workflow request without requested_by. */
export type PreparedApproval = Omit<ApprovalRequest, 'requested_by'>;

export type PreparedCall =
  | {
      ok: true;
      input: Omit<ExecuteAgentInput, keyof ExecutionIds | 'callback' | 'approval'> & { approval?: PreparedApproval };
      approval_required: boolean;
    }
  | { ok: false; code: 'agent_inactive' | 'capability_not_matched'; detail: string }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] };

/**
 * What the gateway decides before anything runs: the agent offers the capability, the call's risk, and
 * whether the agent's policy wants a human to approve it first (then the approval request is part of the
 * execution's input, with an id derived from the execution's).
 */
export function prepareAgentCall(
  settings: PlatformSettings,
  agent: PlatformAgentRow,
  executionId: string,
  call: AgentCall,
  now: Date,
  granted: boolean,
): PreparedCall {
  const check = checkAgentCall(agent, { capability_uri: call.capability_uri, parameters: call.parameters }, granted);
  if (!check.ok) return check;
  let approval: PreparedApproval | undefined;
  if (check.approval_required) {
    const deadline = approvalDeadline(settings, now, {
      expires_in_seconds: agent.approval_policy.approval_ttl_seconds,
    });
    if (!deadline.ok) return { ok: false, code: 'invalid', errors: [deadline.error] };
    approval = {
      approval_id: derivedId('apr', executionId, 'approval'),
      execution_id: executionId,
      agent_id: agent.agent_uri,
      task_id: call.task_id,
      requester_passport_id: call.passport,
      approver_passport_id: agent.approval_policy.approver_passport_id,
      action_description: `Call ${check.capability_uri} on ${agent.agent_uri}`,
      risk_level: check.risk.level,
      risk_factors: check.risk.factors,
      // Modified parameters replace the call's, so they are checked against its parameters.
      request_data: call.parameters,
      params_schema: agent.parameters_schema ?? undefined,
      alternatives: [],
      expires_at: deadline.expires_at,
    };
  }
  return {
    ok: true,
    approval_required: check.approval_required,
    input: {
      task_id: call.task_id,
      agent: {
        agent_id: agent.agent_id,
        agent_uri: agent.agent_uri,
        passport_id: agent.passport_id,
        endpoint_url: agent.endpoint_url,
        timeout_seconds: agent.timeout_seconds,
      },
      capability_uri: check.capability_uri,
      requester_passport_id: call.passport,
      parameters: call.parameters,
      risk: check.risk,
      max_attempts: call.max_attempts ?? agent.max_attempts,
      retry: settings.agentRetry,
      heartbeat_timeout_ms: settings.heartbeatTimeoutMs,
      ...(approval ? { approval } : {}),
    },
  };
}

export type CallOutcome =
  | { ok: true; execution: ExecutionState; approval_required: boolean }
  | {
      ok: false;
      code: 'agent_not_found' | 'agent_inactive' | 'capability_not_matched' | 'callback_secret_required';
      detail: string;
    }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | StorageRefusal;

/** Why a callback cannot be made: the outbound policy refuses its URL, or the caller has no secret to sign it with. */
async function refusedCallback(
  deps: PlatformServiceDeps,
  ids: ExecutionIds,
  callbackUrl: string,
): Promise<Extract<CallOutcome, { ok: false }> | undefined> {
  const destination = await createOutboundGuard(deps.settings.outboundPolicy).check(callbackUrl);
  if (!destination.ok)
    return {
      ok: false,
      code: 'invalid',
      errors: [{ field: 'callback_url', code: 'refused', message: `the callback URL ${destination.reason}` }],
    };
  if ((await liveCallbackSecrets(deps.db, ids.organization_id, ids.requested_by)).length === 0)
    return {
      ok: false,
      code: 'callback_secret_required',
      detail:
        'Callbacks are signed with your callback signing secret: create one with POST /v1/callback-secrets, then call again',
    };
  return undefined;
}

/**
 * Whether the matcher finds the agent (its DID) holding the requested capability by a live grant, directly or
 * by implication. For a capability its registration offers, the grant asked about is the one the registration
 * made (grants are the one source: revoked through the grants API, the offered URI no longer serves).
 */
export async function grantedToAgent(db: Knex, organizationId: string, agent: PlatformAgentRow, requested: string) {
  if (agent.status !== 'active') return false;
  const offered = matchCapability(agent.capabilities, requested);
  const match = offered
    ? await agentMatchName(db, organizationId, agent.passport_id, offeredGrantName(offered))
    : await agentMatch(db, organizationId, agent.passport_id, requested);
  return match !== undefined;
}

/**
 * The unified gateway: checks the call, then starts its execution workflow (Update-with-Start) and answers
 * once the execution is queued, and, when an approval is needed, once that request is recorded too.
 */
export async function callAgent(
  deps: PlatformServiceDeps,
  ids: ExecutionIds,
  agent: PlatformAgentRow | undefined,
  call: AgentCall,
): Promise<CallOutcome> {
  if (!agent) return { ok: false, code: 'agent_not_found', detail: 'No agent is registered with that agent URI' };
  const prepared = prepareAgentCall(
    deps.settings,
    agent,
    ids.execution_id,
    call,
    new Date(),
    await grantedToAgent(deps.db, ids.organization_id, agent, call.capability_uri),
  );
  if (!prepared.ok) return prepared;
  if (call.callback_url !== undefined) {
    const refused = await refusedCallback(deps, ids, call.callback_url);
    if (refused) return refused;
  }
  const { approval, ...execution } = prepared.input;
  const input: ExecuteAgentInput = {
    ...execution,
    ...ids,
    ...(approval ? { approval: { ...approval, requested_by: ids.requested_by } } : {}),
    ...(call.callback_url !== undefined
      ? {
          callback: {
            url: call.callback_url,
            max_attempts: deps.settings.callback.maxAttempts,
            retry: deps.settings.callback.retry,
            timeout_ms: deps.settings.callback.timeoutMs,
          },
        }
      : {}),
  };
  const start = new WithStartWorkflowOperation<ExecuteAgentWorkflow>(EXECUTE_AGENT_WORKFLOW, {
    workflowId: ids.execution_id,
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [
      { key: PlatformStatusKey, value: 'queued' },
      { key: AgentIdKey, value: agent.agent_uri },
    ],
  });
  const started = await startWithUpdate(
    deps.temporal,
    executionAcceptedUpdate,
    start,
    async () => {
      const row = await findExecutionById(deps.db, ids.execution_id, ids.organization_id);
      return row && executionFromRow(row);
    },
    storageRefusal,
  );
  return started.ok ? { ok: true, execution: started.value, approval_required: prepared.approval_required } : started;
}

export async function callAgentByUri(
  deps: PlatformServiceDeps,
  ids: ExecutionIds,
  agentUri: string,
  call: AgentCall,
): Promise<CallOutcome> {
  return callAgent(deps, ids, await findPlatformAgentByUri(deps.db, ids.organization_id, agentUri), call);
}
