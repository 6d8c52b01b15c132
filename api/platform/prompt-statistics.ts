import type { Knex } from 'knex';
import { promptAffinity, promptStatistics } from '../../services/prompts/statistics';
import type { RouteGroup } from '../route-group';
import {
  AffinityItemSchema,
  PageQuerySchema,
  PromptKeyParamsSchema,
  PromptStatisticsSchema,
  styleBPage,
  styleBPageView,
} from '../schemas/prompts';
import { withCursorProblems } from '../middleware/pagination';
import { existingPrompt, GRANTS, keyOf, PROMPT_NOT_FOUND } from './prompt-grants';

/** How the prompt does in reasoning calls: its statistics and each model's affinity with it. */
export function registerPromptStatisticsRoutes(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'get',
    path: '/v1/prompts/{key}/statistics',
    operationId: 'getPromptStatistics',
    summary: 'The prompt’s reasoning calls over the last 7 days, with the recommended model',
    description: `From calls of POST /v1/reason that named the prompt (prompt_key) and the signals recorded on them. ${GRANTS}`,
    request: { params: PromptKeyParamsSchema },
    responses: { 200: { description: 'The statistics', schema: PromptStatisticsSchema }, ...PROMPT_NOT_FOUND },
    handler: async ({ params, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      await existingPrompt(db, principal.organization_id, key);
      return { status: 200, body: await promptStatistics(db, principal.organization_id, key, new Date()) };
    },
  });

  prompts.route({
    method: 'get',
    path: '/v1/prompts/{key}/affinity',
    operationId: 'getPromptAffinity',
    summary: 'How well each model does with the prompt: success rate weighted by cost efficiency, best first',
    description: `Over the last 7 days of calls naming the prompt. ${GRANTS}`,
    request: { params: PromptKeyParamsSchema, query: PageQuerySchema },
    responses: {
      200: { description: 'A page of affinity items', schema: styleBPage(AffinityItemSchema, 'PromptAffinityPage') },
      ...PROMPT_NOT_FOUND,
    },
    handler: async ({ params, query, principal }) => {
      const key = keyOf(principal, params.key, 'read');
      await existingPrompt(db, principal.organization_id, key);
      const page = { limit: query.limit, cursor: query.cursor };
      const found = await withCursorProblems(promptAffinity(db, principal.organization_id, key, new Date(), page));
      return { status: 200, body: styleBPageView(found, (item) => item) };
    },
  });
}
