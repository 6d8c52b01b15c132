import type { Knex } from 'knex';
import { findPrompt, findVersion, type PromptVersionRow } from '../../db/prompts';
import { isPromptKey } from '../../domain/prompts/scopes';
import { isSemver } from '../../domain/prompts/semver';

/** How prompts are named (key or URI) and what a version extends: the references between prompts. */

export function promptUri(organizationId: string, key: string): string {
  return `prompt://org/${organizationId}/${key}`;
}

/** prompt://org/<org>/<key>[@<version>]. */
export const PROMPT_URI = /^prompt:\/\/org\/([A-Za-z0-9._-]{1,128})\/([^/@]+)(?:@([^/]+))?$/;

/**
 * A prompt named by its short key or its URI (prompt://org/<org>/<key>, with @<version> where versions are
 * allowed). Another organization's URI is not found, like an unknown key.
 */
export type PromptRef =
  { ok: true; key: string; version?: string } | { ok: false; reason: 'invalid' | 'other_organization' };

export function parsePromptRef(
  text: string,
  organizationId: string,
  options: { versioned: boolean } = { versioned: false },
): PromptRef {
  const match = PROMPT_URI.exec(text);
  if (!match) return isPromptKey(text) ? { ok: true, key: text } : { ok: false, reason: 'invalid' };
  const [, organization, key, version] = match;
  if (!isPromptKey(key!) || (version !== undefined && (!options.versioned || !isSemver(version))))
    return { ok: false, reason: 'invalid' };
  if (organization !== organizationId) return { ok: false, reason: 'other_organization' };
  return { ok: true, key: key!, ...(version !== undefined ? { version } : {}) };
}

/** Links followed before a chain of extends_uri is taken as too deep to be meant. */
export const MAX_EXTENDS_DEPTH = 16;

type ChainStep =
  | { ok: true; versions: PromptVersionRow[] }
  | { ok: false; code: 'prompt_extends_invalid' | 'prompt_extends_cycle'; detail: string };

/**
 * The versions a version's content is built from, itself first, then what it extends, and so on. An unversioned
 * link means the prompt's active version; `proposed` stands in for what a change would make of one prompt
 * (its active version, and that version's row), so a change can be checked before it is made.
 */
export async function extendsChain(
  db: Knex,
  organizationId: string,
  start: PromptVersionRow,
  proposed?: { key: string; active: PromptVersionRow },
): Promise<ChainStep> {
  const versions = [start];
  const seen = new Set([`${start.prompt_key}@${start.version}`]);
  let current = start;
  while (current.extends_uri) {
    if (versions.length > MAX_EXTENDS_DEPTH)
      return {
        ok: false,
        code: 'prompt_extends_invalid',
        detail: `extends_uri chains more than ${MAX_EXTENDS_DEPTH} prompts`,
      };
    const ref = parsePromptRef(current.extends_uri, organizationId, { versioned: true });
    if (!ref.ok)
      return {
        ok: false,
        code: 'prompt_extends_invalid',
        detail: `${current.extends_uri} is not a prompt URI of this organization`,
      };
    let next: PromptVersionRow | undefined;
    if (ref.version !== undefined)
      next =
        ref.key === proposed?.key && ref.version === proposed.active.version
          ? proposed.active
          : await findVersion(db, organizationId, ref.key, ref.version);
    else if (ref.key === proposed?.key) next = proposed.active;
    else {
      const prompt = await findPrompt(db, organizationId, ref.key);
      next = prompt ? await findVersion(db, organizationId, ref.key, prompt.active_version) : undefined;
    }
    if (!next)
      return {
        ok: false,
        code: 'prompt_extends_invalid',
        detail: `${current.extends_uri} names no published prompt version`,
      };
    const id = `${next.prompt_key}@${next.version}`;
    if (seen.has(id))
      return {
        ok: false,
        code: 'prompt_extends_cycle',
        detail: `${[...seen, id].join(' → ')}: the chain of extends_uri comes back to ${id}`,
      };
    seen.add(id);
    versions.push(next);
    current = next;
  }
  return { ok: true, versions };
}
