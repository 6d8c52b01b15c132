import type { ReasoningCall } from '../../contracts/aggregates/reasoning-call';

/** The step of a call's one provenance record, whoever writes it: the completion or the sweep, never both. */
export const REASONED_STEP = 'reasoned';

/** The fields of a call that say what was asked, known from its start. */
export type AskedCall = Pick<
  ReasoningCall,
  | 'principal_id'
  | 'organization_id'
  | 'entity_id'
  | 'task'
  | 'complexity'
  | 'budget'
  | 'prompt_hash'
  | 'prompt_key'
  | 'prompt_version'
>;

/** What was asked, as the call's provenance record states it, whether the completion or the sweep writes it. */
export function askedOf(call: AskedCall): Record<string, unknown> {
  return {
    principal: call.principal_id,
    organization_id: call.organization_id,
    ...(call.entity_id !== null ? { entity_id: call.entity_id } : {}),
    task: call.task,
    complexity: call.complexity,
    budget: call.budget,
    prompt_hash: call.prompt_hash,
    ...(call.prompt_key !== null ? { prompt_key: call.prompt_key, prompt_version: call.prompt_version } : {}),
  };
}
