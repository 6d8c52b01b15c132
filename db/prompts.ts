import type { Knex } from 'knex';
import type { Prompt, PromptVersion } from '../contracts/aggregates/prompt';
import type { KeyCoverage } from '../domain/prompts/scopes';
import { paginate, type Page, type PageRequest } from './pagination';

/** A prompt as the prompts table stores it: the prompt aggregate (contracts/aggregates/prompt.ts). */
export type PromptRow = Prompt;

/** A version as prompt_versions stores it (meta and input_schema as jsonb). */
export type PromptVersionRow = PromptVersion;

export async function findPrompt(db: Knex, organizationId: string, key: string): Promise<PromptRow | undefined> {
  return db<PromptRow>('prompts').where({ organization_id: organizationId, prompt_key: key }).first();
}

/** The prompt, created (with the version about to be published as active) when missing, and locked for the change. */
export async function lockOrCreatePrompt(
  trx: Knex.Transaction,
  prompt: Pick<PromptRow, 'organization_id' | 'prompt_key' | 'scope' | 'namespace' | 'active_version'>,
): Promise<{ row: PromptRow; created: boolean }> {
  const inserted = await trx('prompts')
    .insert(prompt)
    .onConflict(['organization_id', 'prompt_key'])
    .ignore()
    .returning('prompt_key');
  const row = await trx<PromptRow>('prompts')
    .where({ organization_id: prompt.organization_id, prompt_key: prompt.prompt_key })
    .forUpdate()
    .first();
  return { row: row!, created: inserted.length > 0 };
}

export async function lockPrompt(
  trx: Knex.Transaction,
  organizationId: string,
  key: string,
): Promise<PromptRow | undefined> {
  return trx<PromptRow>('prompts').where({ organization_id: organizationId, prompt_key: key }).forUpdate().first();
}

export async function setActiveVersion(
  db: Knex,
  organizationId: string,
  key: string,
  version: string,
  labels?: { scope: string | null; namespace: string | null },
): Promise<PromptRow> {
  const [row] = await db<PromptRow>('prompts')
    .where({ organization_id: organizationId, prompt_key: key })
    .update({ active_version: version, ...(labels ?? {}), updated_at: db.fn.now() as never })
    .returning('*');
  return row!;
}

/** False when the version, or one of the same precedence (differing only in build metadata), is published. */
export async function insertVersion(
  db: Knex,
  version: Omit<PromptVersionRow, 'published_at' | 'deprecated_at' | 'deprecated_by'>,
): Promise<PromptVersionRow | undefined> {
  const [row] = await db<PromptVersionRow>('prompt_versions')
    .insert({
      ...version,
      meta: JSON.stringify(version.meta) as never,
      input_schema: version.input_schema === null ? null : (JSON.stringify(version.input_schema) as never),
    })
    .onConflict()
    .ignore()
    .returning('*');
  return row;
}

export async function findVersion(
  db: Knex,
  organizationId: string,
  key: string,
  version: string,
): Promise<PromptVersionRow | undefined> {
  return db<PromptVersionRow>('prompt_versions')
    .where({ organization_id: organizationId, prompt_key: key, version })
    .first();
}

export async function deprecateVersion(
  db: Knex,
  organizationId: string,
  key: string,
  version: string,
  by: string,
): Promise<PromptVersionRow> {
  const [row] = await db<PromptVersionRow>('prompt_versions')
    .where({ organization_id: organizationId, prompt_key: key, version })
    .update({ status: 'deprecated', deprecated_at: db.fn.now() as never, deprecated_by: by })
    .returning('*');
  return row!;
}

/** Versions in semver order (version_sort is collated "C", so its byte order is precedence). */
export async function listVersions(
  db: Knex,
  organizationId: string,
  key: string,
  page: PageRequest,
): Promise<Page<PromptVersionRow>> {
  return paginate<PromptVersionRow>(
    db<PromptVersionRow>('prompt_versions').select('*').where({ organization_id: organizationId, prompt_key: key }),
    page,
  );
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** The organization's prompts that the caller's read grants cover. */
export async function listPrompts(
  db: Knex,
  organizationId: string,
  coverage: KeyCoverage,
  filter: { namespace?: string | undefined; scope?: string | undefined },
  page: PageRequest,
): Promise<Page<PromptRow>> {
  const query = db<PromptRow>('prompts').select('*').where({ organization_id: organizationId });
  if (filter.namespace !== undefined) query.where('namespace', filter.namespace);
  if (filter.scope !== undefined) query.where('scope', filter.scope);
  if (!coverage.all) {
    const { keys, prefixes } = coverage;
    query.where((covered) => {
      covered.whereIn('prompt_key', keys.length > 0 ? keys : ['']);
      for (const prefix of prefixes) covered.orWhere('prompt_key', 'like', `${escapeLike(prefix)}%`);
    });
  }
  return paginate<PromptRow>(query, page);
}
