import { z } from 'zod';
import { EXECUTION_STATUSES } from '../../domain/executions/agent-calls';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { RiskFactor } from './approval';

const JsonObject = z.record(z.string(), z.unknown());

/**
 * An agent call: what is asked of which agent, how far it has come, and how it ended. The execute-agent
 * workflow holds it (its id is execution_id), the executions table projects it, the API and the callback
 * show it (services/executions/view.ts); all of them take their fields from here. Fields are in the order
 * the API shows them.
 */
export const ExecutionState = z.object({
  execution_id: z.string().meta({ example: 'exe_3f0c…' }),
  version: z.number().int(),
  status: z.enum(EXECUTION_STATUSES),
  task_id: z.string().optional(),
  agent_id: z.string().meta({ description: 'The registered agent (agt_…)' }),
  agent_uri: z.string(),
  capability_uri: z.string(),
  requester_passport_id: z.string(),
  /** The principal that asked. */
  requested_by: z.string(),
  parameters: JsonObject.meta({ description: 'What the agent receives (with an approver’s modified_params applied)' }),
  risk_level: z.enum(RISK_LEVELS),
  risk_factors: z.array(RiskFactor),
  approval_id: z
    .string()
    .optional()
    .meta({ description: 'The approval the call waited for, when the agent’s policy asked for one' }),
  workflow_id: z.string().optional(),
  node_id: z.string().optional(),
  result_json: JsonObject.optional(),
  error_json: JsonObject.optional().meta({
    description: 'type (agent_rejected, agent_error, agent_unreachable, approval_rejected, …), message, status',
  }),
  progress_percent: z.number().int(),
  progress_message: z.string().optional(),
  callback_url: z.string().optional(),
  callback_success: z.boolean().optional().meta({ description: 'null until the callback is delivered or given up' }),
  callback_attempts: z.number().int(),
  max_attempts: z.number().int(),
  current_attempt: z.number().int(),
  cancelled_by: z.string().optional(),
  cancel_reason: z.string().optional(),
  provenance_id: z.string().optional(),
  queued_at: z.string(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  updated_at: z.string(),
});
export type ExecutionState = z.infer<typeof ExecutionState>;
