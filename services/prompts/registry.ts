import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import {
  deprecateVersion,
  findVersion,
  insertVersion,
  lockOrCreatePrompt,
  lockPrompt,
  setActiveVersion,
  type PromptRow,
  type PromptVersionRow,
} from '../../db/prompts';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import { parseSemver, semverSortKey } from '../../domain/prompts/semver';
import { compileSchema } from './json-schema';
import { extendsChain, parsePromptRef, PROMPT_URI, promptUri } from './references';

function recordPromptChange(
  db: Knex,
  organizationId: string,
  key: string,
  step: string,
  principalId: string,
  output: Record<string, unknown>,
  reasoning: string,
) {
  return appendProvenance(db, {
    entry: {
      subject_id: promptUri(organizationId, key),
      step_id: `${step}:${randomUUID()}`,
      timestamp: new Date().toISOString(),
      actor: { type: 'orch_core', did: ORCH_CORE_DID },
      action: `prompt_${step}`,
      input_data: { principal: principalId, organization_id: organizationId },
      output_data: output,
      reasoning,
    },
  });
}

export interface Publication {
  version: string;
  content: string;
  meta: Record<string, unknown>;
  input_schema?: Record<string, unknown> | undefined;
  extends_uri?: string | undefined;
}

/** An outcome that must undo what its transaction wrote so far. */
class Refused<T> extends Error {
  constructor(readonly outcome: T) {
    super('refused');
  }
}

async function undoneWhenRefused<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(work);
  } catch (error) {
    if (error instanceof Refused) return error.outcome as T;
    throw error;
  }
}

export type FieldProblem = { field: string; code: string; message: string };

export type PublishOutcome =
  | { ok: true; version: PromptVersionRow }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | { ok: false; code: 'prompt_version_exists' | 'prompt_extends_invalid' | 'prompt_extends_cycle'; detail: string };

/** The labels the version's meta gives the prompt (list filters). */
function labelsOf(meta: Record<string, unknown>): { scope: string | null; namespace: string | null } {
  const label = (name: string) => (typeof meta[name] === 'string' ? meta[name] : null);
  return { scope: label('scope'), namespace: label('namespace') };
}

/** Why the publication is refused before anything is read: an input_schema that is no JSON Schema, or a malformed extends_uri. */
function publicationRefusal(organizationId: string, body: Publication): PublishOutcome | undefined {
  if (body.input_schema) {
    const compiled = compileSchema(body.input_schema);
    if (!compiled.ok)
      return {
        ok: false,
        code: 'invalid',
        errors: [{ field: 'input_schema', code: 'invalid_schema', message: compiled.message }],
      };
  }
  if (body.extends_uri === undefined) return undefined;
  const ref = parsePromptRef(body.extends_uri, organizationId, { versioned: true });
  if (ref.ok && PROMPT_URI.test(body.extends_uri)) return undefined;
  return {
    ok: false,
    code: 'prompt_extends_invalid',
    detail: `${body.extends_uri} is not prompt://org/${organizationId}/<key>[@<version>] of a prompt of this organization`,
  };
}

/** Publishes a version, which becomes the active one; the prompt is created when missing. */
export async function publishVersion(
  db: Knex,
  principal: { id: string; organization_id: string },
  key: string,
  body: Publication,
): Promise<PublishOutcome> {
  const organizationId = principal.organization_id;
  const refused = publicationRefusal(organizationId, body);
  if (refused) return refused;
  const labels = labelsOf(body.meta);
  return undoneWhenRefused(db, async (trx): Promise<PublishOutcome> => {
    const { row: prompt } = await lockOrCreatePrompt(trx, {
      organization_id: organizationId,
      prompt_key: key,
      ...labels,
      active_version: body.version,
    });
    const version = await insertVersion(trx, {
      organization_id: organizationId,
      prompt_key: key,
      version: body.version,
      version_sort: semverSortKey(parseSemver(body.version)!),
      content: body.content,
      meta: body.meta,
      input_schema: body.input_schema ?? null,
      extends_uri: body.extends_uri ?? null,
      published_by: principal.id,
      status: 'active',
    });
    // Nothing was written when the version exists (a new prompt has none); a refused chain undoes the insert.
    if (!version)
      return {
        ok: false,
        code: 'prompt_version_exists',
        detail: `${key}@${body.version} (or a version of the same precedence) is already published`,
      };
    const chain = await extendsChain(trx, organizationId, version, { key, active: version });
    if (!chain.ok) throw new Refused(chain);
    await setActiveVersion(trx, organizationId, key, version.version, labels);
    await recordPromptChange(
      trx,
      organizationId,
      key,
      'published',
      principal.id,
      {
        version: version.version,
        previous_active_version: prompt.active_version === version.version ? null : prompt.active_version,
        extends_uri: version.extends_uri,
      },
      `${principal.id} published ${key}@${version.version}, now active`,
    );
    return { ok: true, version };
  });
}

export type RollbackOutcome =
  | { ok: true; prompt: PromptRow; rolled_back_at: Date }
  | {
      ok: false;
      code:
        | 'prompt_not_found'
        | 'prompt_version_not_found'
        | 'prompt_version_deprecated'
        | 'prompt_extends_invalid'
        | 'prompt_extends_cycle';
      detail: string;
    };

/** Makes an earlier (or any published, not deprecated) version the active one. */
export async function rollback(
  db: Knex,
  principal: { id: string; organization_id: string },
  key: string,
  targetVersion: string,
): Promise<RollbackOutcome> {
  const organizationId = principal.organization_id;
  return db.transaction(async (trx): Promise<RollbackOutcome> => {
    const prompt = await lockPrompt(trx, organizationId, key);
    if (!prompt) return { ok: false, code: 'prompt_not_found', detail: `No prompt ${key}` };
    const change = await makeActive(trx, organizationId, prompt, targetVersion);
    if (!change.ok) return change;
    await recordPromptChange(
      trx,
      organizationId,
      key,
      'rolled_back',
      principal.id,
      { from_version: prompt.active_version, to_version: targetVersion },
      `${principal.id} rolled ${key} back from ${prompt.active_version} to ${targetVersion}`,
    );
    return { ok: true, prompt: change.prompt, rolled_back_at: change.prompt.updated_at };
  });
}

async function makeActive(trx: Knex.Transaction, organizationId: string, prompt: PromptRow, version: string) {
  const target = await findVersion(trx, organizationId, prompt.prompt_key, version);
  if (!target)
    return {
      ok: false as const,
      code: 'prompt_version_not_found' as const,
      detail: `${prompt.prompt_key} has no version ${version}`,
    };
  if (target.status === 'deprecated')
    return {
      ok: false as const,
      code: 'prompt_version_deprecated' as const,
      detail: `${prompt.prompt_key}@${version} is deprecated`,
    };
  const chain = await extendsChain(trx, organizationId, target, { key: prompt.prompt_key, active: target });
  if (!chain.ok) return chain;
  return { ok: true as const, prompt: await setActiveVersion(trx, organizationId, prompt.prompt_key, version) };
}

export type DeprecateOutcome =
  | { ok: true; version: PromptVersionRow; prompt: PromptRow }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | {
      ok: false;
      code:
        | 'prompt_not_found'
        | 'prompt_version_not_found'
        | 'prompt_version_active'
        | 'prompt_version_deprecated'
        | 'prompt_extends_invalid'
        | 'prompt_extends_cycle';
      detail: string;
    };

/**
 * Deprecates a version. The active version is deprecated only with a successor, which becomes active in the
 * same transaction, so a prompt always has an active version that is not deprecated. Deprecating a deprecated
 * version changes nothing and answers as the first time.
 */
export async function deprecate(
  db: Knex,
  principal: { id: string; organization_id: string },
  key: string,
  version: string,
  successorVersion: string | undefined,
): Promise<DeprecateOutcome> {
  const organizationId = principal.organization_id;
  return db.transaction(async (trx): Promise<DeprecateOutcome> => {
    const prompt = await lockPrompt(trx, organizationId, key);
    if (!prompt) return { ok: false, code: 'prompt_not_found', detail: `No prompt ${key}` };
    const target = await findVersion(trx, organizationId, key, version);
    if (!target) return { ok: false, code: 'prompt_version_not_found', detail: `${key} has no version ${version}` };
    const isActive = prompt.active_version === version;
    if (successorVersion !== undefined && (!isActive || successorVersion === version)) {
      const message = isActive
        ? 'must name another version than the one deprecated'
        : `is only for the active version (${prompt.active_version}); ${version} is not active`;
      return { ok: false, code: 'invalid', errors: [{ field: 'successor_version', code: 'invalid_value', message }] };
    }
    if (target.status === 'deprecated') return { ok: true, version: target, prompt };
    let current = prompt;
    if (isActive) {
      if (successorVersion === undefined)
        return {
          ok: false,
          code: 'prompt_version_active',
          detail: `${key}@${version} is the active version: name successor_version, which becomes active in its place`,
        };
      const change = await makeActive(trx, organizationId, prompt, successorVersion);
      if (!change.ok) return change;
      current = change.prompt;
    }
    const deprecated = await deprecateVersion(trx, organizationId, key, version, principal.id);
    await recordPromptChange(
      trx,
      organizationId,
      key,
      'deprecated',
      principal.id,
      { version, ...(isActive ? { successor_version: successorVersion } : {}) },
      `${principal.id} deprecated ${key}@${version}${isActive ? `; ${successorVersion!} is active in its place` : ''}`,
    );
    return { ok: true, version: deprecated, prompt: current };
  });
}
