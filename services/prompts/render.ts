import type { Knex } from 'knex';
import { findPrompt, findVersion, type PromptVersionRow } from '../../db/prompts';
import { compileSchema, schemaErrors, type SchemaError } from './json-schema';
import { extendsChain, parsePromptRef } from './references';

export type ResolvedPrompt =
  | { ok: true; key: string; version: PromptVersionRow; chain: PromptVersionRow[] }
  | {
      ok: false;
      code: 'prompt_not_found' | 'prompt_version_not_found' | 'prompt_extends_invalid' | 'prompt_extends_cycle';
      detail: string;
    };

/** A prompt's version (the active one unless named) and the versions it extends. */
export async function resolvePrompt(
  db: Knex,
  organizationId: string,
  key: string,
  version?: string,
): Promise<ResolvedPrompt> {
  const prompt = await findPrompt(db, organizationId, key);
  if (!prompt) return { ok: false, code: 'prompt_not_found', detail: `No prompt ${key}` };
  const row = await findVersion(db, organizationId, key, version ?? prompt.active_version);
  if (!row)
    return {
      ok: false,
      code: 'prompt_version_not_found',
      detail: `${key} has no version ${version ?? prompt.active_version}`,
    };
  const chain = await extendsChain(db, organizationId, row);
  if (!chain.ok) return chain;
  return { ok: true, key, version: row, chain: chain.versions };
}

/** What a version says once its ancestors are put first: the root's content, then each extension's, one paragraph apart. */
export function composedContent(chain: readonly PromptVersionRow[]): string {
  return [...chain]
    .reverse()
    .map((version) => version.content)
    .join('\n\n');
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** {{name}} becomes the variable's value (JSON for what is not a string); a placeholder without a variable stays as written. */
export function fillPlaceholders(content: string, variables: Record<string, unknown>): string {
  return content.replace(PLACEHOLDER, (placeholder, name: string) => {
    if (!Object.hasOwn(variables, name)) return placeholder;
    const value = variables[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

export type PromptMessages =
  | { ok: true; key: string; version: string; content: string }
  | { ok: false; code: 'forbidden'; key: string }
  | {
      ok: false;
      code:
        | 'prompt_not_found'
        | 'prompt_version_not_found'
        | 'prompt_extends_invalid'
        | 'prompt_extends_cycle'
        | 'prompt_variables_invalid';
      detail: string;
      errors?: SchemaError[];
    };

/** The system message a registered prompt makes for a reasoning call: its active version, composed, with the variables checked and filled in. */
export async function promptMessages(
  db: Knex,
  organizationId: string,
  keyOrUri: string,
  variables: Record<string, unknown>,
  mayRead: (key: string) => boolean,
): Promise<PromptMessages> {
  const ref = parsePromptRef(keyOrUri, organizationId);
  if (!ref.ok) return { ok: false, code: 'prompt_not_found', detail: `No prompt ${keyOrUri}` };
  if (!mayRead(ref.key)) return { ok: false, code: 'forbidden', key: ref.key };
  const resolved = await resolvePrompt(db, organizationId, ref.key);
  if (!resolved.ok) return resolved;
  const schema = resolved.version.input_schema;
  if (schema) {
    const compiled = compileSchema(schema);
    if (!compiled.ok)
      return {
        ok: false,
        code: 'prompt_variables_invalid',
        detail: `The input_schema of ${ref.key}@${resolved.version.version} ${compiled.message}`,
      };
    if (!compiled.validate(variables)) {
      return {
        ok: false,
        code: 'prompt_variables_invalid',
        detail: `prompt_variables do not match the input_schema of ${ref.key}@${resolved.version.version}`,
        errors: schemaErrors(compiled.validate, 'prompt_variables'),
      };
    }
  }
  return {
    ok: true,
    key: ref.key,
    version: resolved.version.version,
    content: fillPlaceholders(composedContent(resolved.chain), variables),
  };
}
