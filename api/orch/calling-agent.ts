import type { Knex } from 'knex';
import type { AgentProfile } from '../../domain/agents/agents';
import type { Principal } from '../../services/identity/scopes';
import { callingAgent } from '../../services/agents/calling-agent';
import { Problem } from '../problem';

/** The registered, active agent making an agent operation, or the problem that says why there is none. */
export async function requireCallingAgent(
  db: Knex,
  principal: Principal,
  headerAgentId: string | undefined,
): Promise<AgentProfile> {
  const found = await callingAgent(db, principal, headerAgentId);
  if (found.ok) return found.agent;
  if (found.code === 'agent_id_required') {
    throw new Problem('validation_failed', found.detail, {
      errors: [{ field: 'header.x-agent-id', code: 'required', message: found.detail }],
    });
  }
  throw new Problem(found.code, found.detail);
}

/**
 * The confidence an agent states: X-Confidence-Score, the body's, or both when they agree. Disagreeing
 * is a problem, not a silent choice of one.
 */
export function statedConfidence(header: number | undefined, body: number | undefined, bodyField: string): number {
  if (header !== undefined && body !== undefined && Math.abs(header - body) > 1e-9) {
    throw new Problem('confidence_mismatch', `X-Confidence-Score says ${header}, ${bodyField} says ${body}`, {
      errors: [
        { field: 'header.x-confidence-score', code: 'mismatch', message: `${header} disagrees with ${bodyField}` },
        { field: bodyField, code: 'mismatch', message: `${body} disagrees with X-Confidence-Score` },
      ],
    });
  }
  const confidence = header ?? body;
  if (confidence === undefined) {
    throw new Problem('validation_failed', `Send the confidence in X-Confidence-Score or ${bodyField}`, {
      errors: [{ field: bodyField, code: 'required', message: 'required when X-Confidence-Score is absent' }],
    });
  }
  return confidence;
}
