import { randomBytes } from 'node:crypto';
import type { CallOptions, CallResult } from './http';

type Api = (method: string, path: string, options?: CallOptions) => Promise<CallResult>;

/** Registers an agent through the API as an admin would, and returns its id and API key. */
export async function registerAgent(
  admin: Api,
  body: Record<string, unknown> = {},
): Promise<{ agent_id: string; api_key: string; body: CallResult['body'] }> {
  const agent_id = (body.agent_id as string | undefined) ?? `urn:test:agent:probe:${randomBytes(6).toString('hex')}`;
  const reply = await admin('POST', '/v1/orch/agents/register', {
    json: { agent_name: 'Probe', agent_type: 'probe', ...body, agent_id },
  });
  if (reply.status !== 201) throw new Error(`registering ${agent_id} answered ${reply.status}: ${reply.text}`);
  return { agent_id, api_key: reply.body.api_key, body: reply.body };
}

/** A task id no other test uses. */
export const taskId = (label = 'task') => `${label}-${randomBytes(6).toString('hex')}`;
