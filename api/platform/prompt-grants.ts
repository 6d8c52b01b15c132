import type { Knex } from 'knex';
import { findPrompt, type PromptRow } from '../../db/prompts';
import { PROMPT_ACTION_RISK, riskRank } from '../../domain/identity/capabilities';
import { grantsPrompt, type PromptAction } from '../../domain/prompts/scopes';
import type { Principal } from '../../services/identity/scopes';
import { parsePromptRef } from '../../services/prompts/references';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';

/** The key a path names, once the caller's grant for the action on it is checked: another organization's URI is not found. */
export function keyOf(principal: Principal, text: string, action: PromptAction): string {
  const ref = parsePromptRef(text, principal.organization_id);
  if (!ref.ok) throw new Problem('prompt_not_found', `No prompt ${text}`);
  if (!grantsPrompt(principal.scopes, action, ref.key)) throw missingGrant(`prompt:${action}:${ref.key}`);
  // A delegation token's prompt grant works up to its risk_level, like its capabilities.
  const riskLevel = principal.actor?.delegation?.risk_level;
  if (riskLevel !== undefined && riskRank(riskLevel) < riskRank(PROMPT_ACTION_RISK[action])) {
    throw new Problem(
      'insufficient_scope',
      `Prompt ${action} is ${PROMPT_ACTION_RISK[action]} risk; the token's risk_level is ${riskLevel}`,
      {
        extensions: { required_scope: `prompt:${action}:${ref.key}` },
      },
    );
  }
  return ref.key;
}

function missingGrant(scope: string): Problem {
  return new Problem('insufficient_scope', `This operation needs the scope ${scope}`, {
    headers: { 'WWW-Authenticate': `Bearer realm="handoff", error="insufficient_scope", scope="${scope}"` },
    extensions: { required_scope: scope },
  });
}

export const GRANTS =
  'Per-key grants: prompt:<action>:<key>, with prompt:<action>:<prefix>* and prompt:<action>:* covering many; platform:admin holds them all, a signed-in person ' +
  'holds prompt:*:* in their organization. A delegation token holds the prompt grants it was given (narrowed by coverage from its parent), publish, ' +
  'rollback and deprecate only at risk_level standard or high.';
export const promptScope = (action: PromptAction) => ({ perResource: `prompt:${action}:{key}` });

/** The prompt routes: tagged Prompts, each needing the grant to read the key it names unless it says another. */
export function promptRoutes(api: ApiBuilder): RouteGroup {
  return routeGroup(api, { tags: ['Prompts'], auth: promptScope('read'), rateLimit: 'default' });
}

/** The organization's prompt under the key, or prompt_not_found. */
export async function existingPrompt(db: Knex, organizationId: string, key: string): Promise<PromptRow> {
  const prompt = await findPrompt(db, organizationId, key);
  if (!prompt) throw new Problem('prompt_not_found', `No prompt ${key}`);
  return prompt;
}
export const PROMPT_NOT_FOUND = {
  404: { description: 'prompt_not_found (also for another organization’s prompt URI), prompt_version_not_found' },
};
