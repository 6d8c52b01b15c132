/**
 * Grants on prompts, one key at a time: prompt:<action>:<key>. The key may end in * (prompt:read:support-*
 * covers every key that starts with support-; prompt:read:* covers all), and the action may be * (every action
 * on the keys). platform:admin, which administers the platform, holds every prompt grant.
 */
export const PROMPT_ACTIONS = ['read', 'publish', 'rollback', 'deprecate'] as const;
export type PromptAction = (typeof PROMPT_ACTIONS)[number];

/** A prompt key: what follows prompt://org/<org>/ in a prompt URI. */
export const PROMPT_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const SCOPE_PATTERN = /^prompt:(read|publish|rollback|deprecate|\*):([A-Za-z0-9._-]{0,128}\*?)$/;
const ADMIN_SCOPE = 'platform:admin';

export function isPromptKey(value: string): boolean {
  return PROMPT_KEY_PATTERN.test(value);
}

export function isPromptScope(value: string): boolean {
  const match = SCOPE_PATTERN.exec(value);
  if (!match) return false;
  const pattern = match[2]!;
  return pattern.endsWith('*') || isPromptKey(pattern);
}

export function promptScope(action: PromptAction, key: string): string {
  return `prompt:${action}:${key}`;
}

function covers(pattern: string, key: string): boolean {
  return pattern.endsWith('*') ? key.startsWith(pattern.slice(0, -1)) : pattern === key;
}

export function grantsPrompt(scopes: readonly string[], action: PromptAction, key: string): boolean {
  return scopes.some((scope) => {
    if (scope === ADMIN_SCOPE) return true;
    const match = SCOPE_PATTERN.exec(scope);
    return match !== null && (match[1] === '*' || match[1] === action) && covers(match[2]!, key);
  });
}

/** The keys a caller's grants cover for an action, as a list filter: every key, or exact keys and key prefixes. */
export type KeyCoverage = { all: true } | { all: false; keys: string[]; prefixes: string[] };

export function promptCoverage(scopes: readonly string[], action: PromptAction): KeyCoverage {
  const keys = new Set<string>();
  const prefixes = new Set<string>();
  for (const scope of scopes) {
    if (scope === ADMIN_SCOPE) return { all: true };
    const match = SCOPE_PATTERN.exec(scope);
    if (!match || (match[1] !== '*' && match[1] !== action)) continue;
    const pattern = match[2]!;
    if (pattern === '*') return { all: true };
    if (pattern.endsWith('*')) prefixes.add(pattern.slice(0, -1));
    else keys.add(pattern);
  }
  return { all: false, keys: [...keys], prefixes: [...prefixes] };
}

/** Whether holding `held` covers granting `requested` (a principal grants only what it holds). */
export function promptScopeHeld(held: readonly string[], requested: string): boolean {
  const wanted = SCOPE_PATTERN.exec(requested);
  if (!wanted || !isPromptScope(requested)) return false;
  return held.some((scope) => {
    if (scope === ADMIN_SCOPE) return true;
    const match = SCOPE_PATTERN.exec(scope);
    if (!match || (match[1] !== '*' && match[1] !== wanted[1])) return false;
    const pattern = match[2]!;
    return pattern.endsWith('*') ? wanted[2]!.startsWith(pattern.slice(0, -1)) : pattern === wanted[2];
  });
}
