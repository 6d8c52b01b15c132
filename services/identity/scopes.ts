import { isPromptScope, promptScopeHeld } from '../../domain/prompts/scopes';
import type { Actor } from './authentication/actor';

/**
 * orch:* guard the orchestration layer (/v1/orch), platform:* the platform API (/v1): read lists and
 * reads, write submits and answers, admin configures. Until the identity work makes platform calls carry
 * delegation tokens, platform callers hold these scopes on the same bearer tokens. orch:agent is the one
 * scope of a registered agent's API key: the agent operations (/route, /confidence, …) and nothing else.
 * cloud:admin:global (the platform spec's name) administers the deployment across organizations: it creates
 * organizations and lists all of them; it grants nothing inside another organization's resources.
 * people:enroll is the organization administrator's power to enroll a person (a person's Passport, whom
 * sessions and delegations then act as): more than platform:write, which creates agent Passports only.
 */
export const SCOPES = [
  'orch:read',
  'orch:write',
  'orch:admin',
  'audit:read',
  'platform:read',
  'platform:write',
  'platform:admin',
  'people:enroll',
  'orch:agent',
  'cloud:admin:global',
] as const;
export type Scope = (typeof SCOPES)[number];

/** An admin scope configures its layer, so it may also read and write there; audit:read stays separate. */
const IMPLIED: Record<Scope, Scope[]> = {
  'orch:read': [],
  'orch:write': ['orch:agent'],
  'orch:admin': ['orch:read', 'orch:write', 'orch:agent'],
  'audit:read': [],
  'platform:read': [],
  'platform:write': [],
  'platform:admin': ['platform:read', 'platform:write', 'people:enroll'],
  'people:enroll': [],
  'orch:agent': [],
  'cloud:admin:global': [],
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(scopes: readonly string[], needed: Scope): boolean {
  return scopes.some((scope) => isScope(scope) && (scope === needed || IMPLIED[scope].includes(needed)));
}

/**
 * What a token or account may carry: a scope of SCOPES, or a per-key prompt grant (prompt:read:{key}, with
 * wildcards; domain/prompts/scopes.ts), which platform:admin implies.
 */
export function isGrantableScope(value: string): boolean {
  return isScope(value) || isPromptScope(value);
}

/** The requested scopes that `held` does not grant, in the order requested: a principal grants only what it holds. */
export function scopesNotHeld<S extends string>(held: readonly string[], requested: readonly S[]): S[] {
  return requested.filter((scope) => !(isScope(scope) ? grants(held, scope) : promptScopeHeld(held, scope)));
}

export interface Principal {
  /** Stable id used for rate limits and idempotency: `pat:<id>`, `sa:<client_id>`, `agent:<agent_id>` or `sub:<subject>`. */
  id: string;
  kind: 'personal_access_token' | 'service_account' | 'jwt' | 'agent' | 'session' | 'delegation_token';
  subject: string;
  scopes: string[];
  /** The tenant: the caller sees and changes only this organization's resources. */
  organization_id: string;
  /** Present when the credential authenticates a Passport (a session or a delegation token). */
  actor?: Actor;
}
