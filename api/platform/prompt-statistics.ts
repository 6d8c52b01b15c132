import type { Knex } from 'knex';
import { findPrompt } from '../../db/prompts';
import { promptAffinity, promptStatistics } from '../../services/prompts/statistics';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import {
  AffinityItemSchema,
  PageQuerySchema,
  PromptKeyParamsSchema,
  PromptStatisticsSchema,
  styleBPage,
  styleBPageView,
} from '../schemas/prompts';
import { withCursorProblems } from '../middleware/pagination';
import { GRANTS, keyOf, PROMPT_NOT_FOUND, PROMPT_TAGS, promptScope } from './prompt-grants';

/** How the prompt does in reasoning calls: its statistics and each model's affinity with it. */
export function registerPromptStatisticsRoutes(api: ApiBuilder, db: Knex): void {
  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/statistics',
    operationId: 'getPromptStatistics',
    summary: 'The prompt’s reasoning calls over the last 7 days, with the recommended model',
    description: `From calls of POST /v1/reason that named the prompt (prompt_key) and the signals recorded on them. ${GRANTS}`,
    tags: PROMPT_TAGS,
    auth: promptScope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema },
    responses: { 200: { description: 'The statistics', schema: PromptStatisticsSchema }, ...PROMPT_NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      if (!(await findPrompt(db, principal.organization_id, key)))
        throw new Problem('prompt_not_found', `No prompt ${key}`);
      return { status: 200, body: await promptStatistics(db, principal.organization_id, key, new Date()) };
    },
  });

  api.route({
    method: 'get',
    path: '/v1/prompts/{key}/affinity',
    operationId: 'getPromptAffinity',
    summary: 'How well each model does with the prompt: success rate weighted by cost efficiency, best first',
    description: `Over the last 7 days of calls naming the prompt. ${GRANTS}`,
    tags: PROMPT_TAGS,
    auth: promptScope('read'),
    rateLimit: 'default',
    request: { params: PromptKeyParamsSchema, query: PageQuerySchema },
    responses: {
      200: { description: 'A page of affinity items', schema: styleBPage(AffinityItemSchema, 'PromptAffinityPage') },
      ...PROMPT_NOT_FOUND,
    },
    handler: async ({ params, query, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      if (!(await findPrompt(db, principal.organization_id, key)))
        throw new Problem('prompt_not_found', `No prompt ${key}`);
      const page = { limit: query.limit, cursor: query.cursor };
      const found = await withCursorProblems(promptAffinity(db, principal.organization_id, key, new Date(), page));
      return { status: 200, body: styleBPageView(found, (item) => item) };
    },
  });
}
