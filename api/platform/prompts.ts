import type { Knex } from 'knex';
import { findPrompt, findVersion, listPrompts, listVersions } from '../../db/prompts';
import { promptCoverage } from '../../domain/prompts/scopes';
import { withCursorProblems } from '../middleware/pagination';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import type { RouteGroup } from '../route-group';
import {
  ListPromptsQuerySchema,
  PageQuerySchema,
  PromptKeyParamsSchema,
  PromptSchema,
  PromptVersionParamsSchema,
  PromptVersionSchema,
  promptView,
  styleBPage,
  styleBPageView,
  versionView,
} from '../schemas/prompts';
import { registerPromptChangeRoutes } from './prompt-changes';
import { existingPrompt, GRANTS, keyOf, PROMPT_NOT_FOUND, promptRoutes } from './prompt-grants';
import { registerPromptStatisticsRoutes } from './prompt-statistics';

/** Every prompt route: the reads here, then the changes and the statistics. */
export function registerPromptRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const prompts = promptRoutes(api);
  registerPromptList(prompts, deps.db);
  registerPromptReads(prompts, deps.db);
  registerPromptChangeRoutes(prompts, deps.db);
  registerPromptStatisticsRoutes(prompts, deps.db);
}

function registerPromptList(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'get',
    path: '/v1/prompts',
    operationId: 'listPrompts',
    summary: 'List the organization’s prompts that the caller may read',
    description: `Only prompts the caller’s prompt:read grants cover are listed (the others are not counted either). Ordered by key. ${GRANTS}`,
    auth: { perResource: 'prompt:read:*' },
    request: { query: ListPromptsQuerySchema },
    responses: { 200: { description: 'A page of prompts', schema: styleBPage(PromptSchema, 'PromptPage') } },
    handler: async ({ query, principal }) => {
      const page = {
        limit: query.limit,
        cursor: query.cursor,
        sort: [{ column: 'prompt_key', direction: 'asc' as const }],
      };
      const found = await withCursorProblems(
        listPrompts(db, principal.organization_id, promptCoverage(principal.scopes, 'read'), query, page),
      );
      return { status: 200, body: styleBPageView(found, promptView) };
    },
  });
}

function registerPromptReads(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'get',
    path: '/v1/prompts/{key}',
    operationId: 'getPrompt',
    summary: 'The prompt’s active version',
    description: GRANTS,
    request: { params: PromptKeyParamsSchema },
    responses: { 200: { description: 'The active version', schema: PromptVersionSchema }, ...PROMPT_NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      const prompt = await findPrompt(db, principal.organization_id, key);
      const version = prompt ? await findVersion(db, principal.organization_id, key, prompt.active_version) : undefined;
      if (!version) throw new Problem('prompt_not_found', `No prompt ${key}`);
      return { status: 200, body: versionView(version) };
    },
  });
  registerPromptVersionReads(prompts, db);
}

function registerPromptVersionReads(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'get',
    path: '/v1/prompts/{key}/versions',
    operationId: 'listPromptVersions',
    summary: 'The prompt’s versions in semver order',
    description: GRANTS,
    request: { params: PromptKeyParamsSchema, query: PageQuerySchema },
    responses: {
      200: {
        description: 'A page of versions, lowest first',
        schema: styleBPage(PromptVersionSchema, 'PromptVersionPage'),
      },
      ...PROMPT_NOT_FOUND,
    },
    handler: async ({ params, query, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      await existingPrompt(db, principal.organization_id, key);
      const page = {
        limit: query.limit,
        cursor: query.cursor,
        sort: [{ column: 'version_sort', direction: 'asc' as const }],
      };
      const found = await withCursorProblems(listVersions(db, principal.organization_id, key, page));
      return { status: 200, body: styleBPageView(found, versionView) };
    },
  });

  prompts.route({
    method: 'get',
    path: '/v1/prompts/{key}/versions/{version}',
    operationId: 'getPromptVersion',
    summary: 'One version of the prompt',
    description: GRANTS,
    request: { params: PromptVersionParamsSchema },
    responses: { 200: { description: 'The version', schema: PromptVersionSchema }, ...PROMPT_NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      const version = await findVersion(db, principal.organization_id, key, params.version);
      if (!version)
        throw new Problem(
          (await findPrompt(db, principal.organization_id, key)) ? 'prompt_version_not_found' : 'prompt_not_found',
          `No version ${params.version} of ${key}`,
        );
      return { status: 200, body: versionView(version) };
    },
  });
}
