import type { Knex } from 'knex';
import { findPrompt, findVersion, listPrompts, listVersions, type PromptRow, type PromptVersionRow } from '../../db/prompts';
import type { Page } from '../../db/pagination';
import { PROMPT_ACTION_RISK, riskRank } from '../../domain/capabilities';
import { grantsPrompt, promptCoverage, type PromptAction } from '../../domain/prompt-scopes';
import type { Principal } from '../../services/auth/tokens';
import { deprecate, parsePromptRef, promptUri, publishVersion, rollback } from '../../services/prompts/registry';
import { promptAffinity, promptStatistics } from '../../services/prompts/statistics';
import { withCursorProblems } from '../middleware/pagination';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  AffinityItemSchema,
  DeprecatePromptSchema,
  ListPromptsQuerySchema,
  PageQuerySchema,
  PromptKeyParamsSchema,
  PromptSchema,
  PromptStatisticsSchema,
  PromptVersionParamsSchema,
  PromptVersionSchema,
  PublishPromptSchema,
  RollbackPromptSchema,
  styleBPage,
} from '../schemas/prompts';
import { z } from '../schemas/zod';

function promptView(row: PromptRow) {
  return {
    prompt_uri: promptUri(row.organization_id, row.prompt_key),
    prompt_key: row.prompt_key,
    org_id: row.organization_id,
    scope: row.scope,
    namespace: row.namespace,
    active_version: row.active_version,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function versionView(row: PromptVersionRow) {
  return {
    prompt_uri: promptUri(row.organization_id, row.prompt_key),
    prompt_key: row.prompt_key,
    org_id: row.organization_id,
    version: row.version,
    content: row.content,
    meta: row.meta,
    input_schema: row.input_schema,
    extends_uri: row.extends_uri,
    published_by: row.published_by,
    published_at: row.published_at.toISOString(),
    status: row.status,
    deprecated_at: row.deprecated_at?.toISOString() ?? null,
  };
}

const styleB = <T, V>(page: Page<T>, view: (row: T) => V) => ({ data: page.data.map(view), pagination: { has_more: page.has_more, next_cursor: page.next_cursor, total_count: page.total_count } });

/** The key a path names, once the caller's grant for the action on it is checked: another organization's URI is not found. */
function keyOf(principal: Principal, text: string, action: PromptAction): string {
  const ref = parsePromptRef(text, principal.organization_id);
  if (!ref.ok) throw new Problem('prompt_not_found', `No prompt ${text}`);
  if (!grantsPrompt(principal.scopes, action, ref.key)) throw missingGrant(`prompt:${action}:${ref.key}`);
  // A delegation token's prompt grant works up to its risk_level, like its capabilities.
  const riskLevel = principal.actor?.delegation?.risk_level;
  if (riskLevel !== undefined && riskRank(riskLevel) < riskRank(PROMPT_ACTION_RISK[action])) {
    throw new Problem('insufficient_scope', `Prompt ${action} is ${PROMPT_ACTION_RISK[action]} risk; the token's risk_level is ${riskLevel}`, {
      extensions: { required_scope: `prompt:${action}:${ref.key}` },
    });
  }
  return ref.key;
}

function missingGrant(scope: string): Problem {
  return new Problem('insufficient_scope', `This operation needs the scope ${scope}`, {
    headers: { 'WWW-Authenticate': `Bearer realm="handoff", error="insufficient_scope", scope="${scope}"` },
    extensions: { required_scope: scope },
  });
}

const GRANTS =
  'Per-key grants: prompt:<action>:<key>, with prompt:<action>:<prefix>* and prompt:<action>:* covering many; platform:admin holds them all, a signed-in person ' +
  'holds prompt:*:* in their organization. A delegation token holds the prompt grants it was given (narrowed by coverage from its parent), publish, ' +
  'rollback and deprecate only at risk_level standard or high.';
const tags = ['Prompts'];
const scope = (action: PromptAction) => ({ perResource: `prompt:${action}:{key}` });
const NOT_FOUND = { 404: { description: 'prompt_not_found (also for another organization’s prompt URI), prompt_version_not_found' } };

function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0) return parsed.o;
  } catch {
    // Falls through to the problem below.
  }
  throw new Problem('invalid_cursor', 'The cursor is not one this API issued', { errors: [{ field: 'query.cursor', code: 'invalid_cursor', message: 'pass next_cursor as returned' }] });
}

export function registerPromptRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const { db } = deps;

  api.route({
    method: 'get',
    path: '/v1/prompts',
    operationId: 'listPrompts',
    summary: 'List the organization’s prompts that the caller may read',
    description: `Only prompts the caller’s prompt:read grants cover are listed (the others are not counted either). Ordered by key. ${GRANTS}`,
    tags,
    auth: { perResource: 'prompt:read:*' },
    rateLimit: 'default',
    request: { query: ListPromptsQuerySchema },
    responses: { 200: { description: 'A page of prompts', schema: styleBPage(PromptSchema, 'PromptPage') } },
    handler: async ({ query, principal }) => {
      const page = await withCursorProblems(
        listPrompts(db, principal.organization_id, promptCoverage(principal.scopes, 'read'), query, { limit: query.limit, cursor: query.cursor, sort: [{ column: 'prompt_key', direction: 'asc' }] }),
      );
      return { status: 200, body: styleB(page, promptView) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}',
    operationId: 'getPrompt',
    summary: 'The prompt’s active version',
    description: GRANTS,
    tags,
    auth: scope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema },
    responses: { 200: { description: 'The active version', schema: PromptVersionSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      const prompt = await findPrompt(db, principal.organization_id, key);
      const version = prompt ? await findVersion(db, principal.organization_id, key, prompt.active_version) : undefined;
      if (!version) throw new Problem('prompt_not_found', `No prompt ${key}`);
      return { status: 200, body: versionView(version) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/versions',
    operationId: 'listPromptVersions',
    summary: 'The prompt’s versions in semver order',
    description: GRANTS,
    tags,
    auth: scope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema, query: PageQuerySchema },
    responses: { 200: { description: 'A page of versions, lowest first', schema: styleBPage(PromptVersionSchema, 'PromptVersionPage') }, ...NOT_FOUND },
    handler: async ({ params, query, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      if (!(await findPrompt(db, principal.organization_id, key))) throw new Problem('prompt_not_found', `No prompt ${key}`);
      const page = await withCursorProblems(listVersions(db, principal.organization_id, key, { limit: query.limit, cursor: query.cursor, sort: [{ column: 'version_sort', direction: 'asc' }] }));
      return { status: 200, body: styleB(page, versionView) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/versions/{version}',
    operationId: 'getPromptVersion',
    summary: 'One version of the prompt',
    description: GRANTS,
    tags,
    auth: scope('read'),
    rateLimit: 'default',
    request: { params: PromptVersionParamsSchema },
    responses: { 200: { description: 'The version', schema: PromptVersionSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      const version = await findVersion(db, principal.organization_id, key, params.version);
      if (!version) throw new Problem((await findPrompt(db, principal.organization_id, key)) ? 'prompt_version_not_found' : 'prompt_not_found', `No version ${params.version} of ${key}`);
      return { status: 200, body: versionView(version) };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/prompts/{key}/versions',
    operationId: 'publishPromptVersion',
    summary: 'Publish a version; it becomes the active one (the prompt is created if missing)',
    description: `Published versions never change. input_schema must be a JSON Schema; extends_uri must name a published prompt of the organization without a cycle. ${GRANTS}`,
    tags,
    auth: scope('publish'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema, body: PublishPromptSchema },
    responses: {
      201: { description: 'The version, now active', schema: PromptVersionSchema },
      404: { description: 'prompt_not_found: the key is another organization’s prompt URI' },
      409: { description: 'prompt_version_exists' },
      422: { description: 'prompt_extends_invalid, prompt_extends_cycle' },
    },
    handler: async ({ params, body, principal }) => {
      const key = keyOf(principal, params.key, 'publish');
      const outcome = await publishVersion(db, principal, key, body);
      if (!outcome.ok) {
        if (outcome.code === 'invalid') throw new Problem('validation_failed', 'The body has 1 invalid field(s)', { errors: outcome.errors });
        throw new Problem(outcome.code, outcome.detail);
      }
      return { status: 201, body: versionView(outcome.version), headers: { Location: `/v1/prompts/${encodeURIComponent(key)}/versions/${encodeURIComponent(outcome.version.version)}` } };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/prompts/{key}/rollback',
    operationId: 'rollbackPrompt',
    summary: 'Make a published, not deprecated version the active one',
    description: GRANTS,
    tags,
    auth: scope('rollback'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema, body: RollbackPromptSchema },
    responses: {
      200: {
        description: 'The prompt’s new active version',
        schema: z.object({ prompt_uri: z.string(), active_version: z.string(), rolled_back_at: z.string().openapi({ format: 'date-time' }) }).openapi('PromptRollback'),
      },
      ...NOT_FOUND,
      409: { description: 'prompt_version_deprecated' },
      422: { description: 'prompt_extends_invalid, prompt_extends_cycle: the target’s chain of extends_uri is broken or comes back to it' },
    },
    handler: async ({ params, body, principal }) => {
      const key = keyOf(principal, params.key, 'rollback');
      const outcome = await rollback(db, principal, key, body.target_version);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 200, body: { prompt_uri: promptUri(principal.organization_id, key), active_version: outcome.prompt.active_version, rolled_back_at: outcome.rolled_back_at.toISOString() } };
    },
  });

  api.route({
    method: 'post',
    path: '/v1/prompts/{key}/versions/{version}/deprecate',
    operationId: 'deprecatePromptVersion',
    summary: 'Deprecate a version; the active one only with a successor_version, which becomes active in its place',
    description: `A deprecated version is no rollback target. Deprecating it again answers as the first time. ${GRANTS}`,
    tags,
    auth: scope('deprecate'),
    rateLimit: 'default',
    request: { params: PromptVersionParamsSchema, body: DeprecatePromptSchema },
    responses: {
      200: {
        description: 'The version, deprecated',
        schema: z
          .object({ prompt_uri: z.string(), version: z.string(), status: z.literal('deprecated'), deprecated_at: z.string().openapi({ format: 'date-time' }), active_version: z.string() })
          .openapi('PromptDeprecation'),
      },
      ...NOT_FOUND,
      409: { description: 'prompt_version_active: the active version needs successor_version; prompt_version_deprecated: the successor is deprecated' },
      422: { description: 'prompt_extends_invalid, prompt_extends_cycle: the successor’s chain of extends_uri is broken or comes back to it' },
    },
    handler: async ({ params, body, principal }) => {
      const key = keyOf(principal, params.key, 'deprecate');
      const outcome = await deprecate(db, principal, key, params.version, body.successor_version);
      if (!outcome.ok) {
        if (outcome.code === 'invalid') throw new Problem('validation_failed', 'The body has 1 invalid field(s)', { errors: outcome.errors });
        throw new Problem(outcome.code, outcome.detail);
      }
      return {
        status: 200,
        body: { prompt_uri: promptUri(principal.organization_id, key), version: outcome.version.version, status: 'deprecated', deprecated_at: outcome.version.deprecated_at!.toISOString(), active_version: outcome.prompt.active_version },
      };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/statistics',
    operationId: 'getPromptStatistics',
    summary: 'The prompt’s reasoning calls over the last 7 days, with the recommended model',
    description: `From calls of POST /v1/reason that named the prompt (prompt_key) and the signals recorded on them. ${GRANTS}`,
    tags,
    auth: scope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema },
    responses: { 200: { description: 'The statistics', schema: PromptStatisticsSchema }, ...NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      if (!(await findPrompt(db, principal.organization_id, key))) throw new Problem('prompt_not_found', `No prompt ${key}`);
      return { status: 200, body: await promptStatistics(db, principal.organization_id, key, new Date()) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/affinity',
    operationId: 'getPromptAffinity',
    summary: 'How well each model does with the prompt: success rate weighted by cost efficiency, best first',
    description: `Over the last 7 days of calls naming the prompt. ${GRANTS}`,
    tags,
    auth: scope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema, query: PageQuerySchema },
    responses: { 200: { description: 'A page of affinity items', schema: styleBPage(AffinityItemSchema, 'PromptAffinityPage') }, ...NOT_FOUND },
    handler: async ({ params, query, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      const offset = decodeOffset(query.cursor);
      if (!(await findPrompt(db, principal.organization_id, key))) throw new Problem('prompt_not_found', `No prompt ${key}`);
      const items = await promptAffinity(db, principal.organization_id, key, new Date());
      const data = items.slice(offset, offset + query.limit);
      const has_more = offset + query.limit < items.length;
      return { status: 200, body: { data, pagination: { has_more, next_cursor: has_more ? encodeOffset(offset + query.limit) : null, total_count: items.length } } };
    },
  });
}
