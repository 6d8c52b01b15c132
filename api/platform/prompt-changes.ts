import type { Knex } from 'knex';
import { deprecate, publishVersion, rollback, type FieldProblem } from '../../services/prompts/registry';
import { promptUri } from '../../services/prompts/references';
import { Problem, type ProblemCode } from '../problem';
import type { RouteGroup } from '../route-group';
import {
  DeprecatePromptSchema,
  PromptDeprecationSchema,
  PromptKeyParamsSchema,
  PromptRollbackSchema,
  PromptVersionParamsSchema,
  PromptVersionSchema,
  PublishPromptSchema,
  RollbackPromptSchema,
  versionView,
} from '../schemas/prompts';
import { GRANTS, keyOf, PROMPT_NOT_FOUND, promptScope } from './prompt-grants';

type Refusal = { code: 'invalid'; errors: FieldProblem[] } | { code: ProblemCode; detail: string };

/** A refused change as its problem: a field the body got wrong, or the outcome's own code. */
function refusal(outcome: Refusal): Problem {
  if (outcome.code === 'invalid')
    return new Problem('validation_failed', 'The body has 1 invalid field(s)', { errors: outcome.errors });
  return new Problem(outcome.code, outcome.detail);
}

/** What changes a prompt: publishing a version, rolling back to one, deprecating one. */
export function registerPromptChangeRoutes(prompts: RouteGroup, db: Knex): void {
  registerPublish(prompts, db);
  registerRollback(prompts, db);
  registerDeprecate(prompts, db);
}

function registerPublish(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'post',
    path: '/v1/prompts/{key}/versions',
    operationId: 'publishPromptVersion',
    summary: 'Publish a version; it becomes the active one (the prompt is created if missing)',
    description: `Published versions never change. input_schema must be a JSON Schema; extends_uri must name a published prompt of the organization without a cycle. ${GRANTS}`,
    auth: promptScope('publish'),
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
      if (!outcome.ok) throw refusal(outcome);
      return {
        status: 201,
        body: versionView(outcome.version),
        headers: {
          Location: `/v1/prompts/${encodeURIComponent(key)}/versions/${encodeURIComponent(outcome.version.version)}`,
        },
      };
    },
  });
}

function registerRollback(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'post',
    path: '/v1/prompts/{key}/rollback',
    operationId: 'rollbackPrompt',
    summary: 'Make a published, not deprecated version the active one',
    description: GRANTS,
    auth: promptScope('rollback'),
    request: { params: PromptKeyParamsSchema, body: RollbackPromptSchema },
    responses: {
      200: { description: 'The prompt’s new active version', schema: PromptRollbackSchema },
      ...PROMPT_NOT_FOUND,
      409: { description: 'prompt_version_deprecated' },
      422: {
        description:
          'prompt_extends_invalid, prompt_extends_cycle: the target’s chain of extends_uri is broken or comes back to it',
      },
    },
    handler: async ({ params, body, principal }) => {
      const key = keyOf(principal, params.key, 'rollback');
      const outcome = await rollback(db, principal, key, body.target_version);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return {
        status: 200,
        body: {
          prompt_uri: promptUri(principal.organization_id, key),
          active_version: outcome.prompt.active_version,
          rolled_back_at: outcome.rolled_back_at.toISOString(),
        },
      };
    },
  });
}

function registerDeprecate(prompts: RouteGroup, db: Knex): void {
  prompts.route({
    method: 'post',
    path: '/v1/prompts/{key}/versions/{version}/deprecate',
    operationId: 'deprecatePromptVersion',
    summary: 'Deprecate a version; the active one only with a successor_version, which becomes active in its place',
    description: `A deprecated version is no rollback target. Deprecating it again answers as the first time. ${GRANTS}`,
    auth: promptScope('deprecate'),
    request: { params: PromptVersionParamsSchema, body: DeprecatePromptSchema },
    responses: {
      200: { description: 'The version, deprecated', schema: PromptDeprecationSchema },
      ...PROMPT_NOT_FOUND,
      409: {
        description:
          'prompt_version_active: the active version needs successor_version; prompt_version_deprecated: the successor is deprecated',
      },
      422: {
        description:
          'prompt_extends_invalid, prompt_extends_cycle: the successor’s chain of extends_uri is broken or comes back to it',
      },
    },
    handler: async ({ params, body, principal }) => {
      const key = keyOf(principal, params.key, 'deprecate');
      const outcome = await deprecate(db, principal, key, params.version, body.successor_version);
      if (!outcome.ok) throw refusal(outcome);
      const { version, prompt } = outcome;
      return {
        status: 200,
        body: {
          prompt_uri: promptUri(principal.organization_id, key),
          version: version.version,
          status: 'deprecated' as const,
          deprecated_at: version.deprecated_at!.toISOString(),
          active_version: prompt.active_version,
        },
      };
    },
  });
}
