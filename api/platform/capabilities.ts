import type { Knex } from 'knex';
import { DEFINITION_SORTABLE, listDefinitions } from '../../db/capabilities';
import {
  defineCapability,
  findOwnDefinition,
  importCapabilities,
  promoteCapability,
} from '../../services/capabilities/definitions';
import { fieldErrors } from '../field-errors';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  CapabilityDefinitionSchema,
  CapabilityParamsSchema,
  DefineCapabilitySchema,
  ImportCapabilitiesResponseSchema,
  ImportCapabilitiesSchema,
  ListDefinitionsQuerySchema,
  PromoteCapabilitySchema,
  PromotedCapabilitySchema,
  definitionView,
} from '../schemas/capabilities';
import { registerCapabilityMatchRoute } from './capability-match';

/** Capability definitions: list, define, import, read, promote; and the match. */
export function registerCapabilityRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const capabilities = routeGroup(api, { tags: ['Capabilities'], auth: 'platform:admin', rateLimit: 'default' });
  capabilities.list({
    path: '/v1/capabilities',
    operationId: 'listCapabilityDefinitions',
    summary: 'List capability definitions',
    auth: 'platform:read',
    query: ListDefinitionsQuerySchema,
    page: { description: 'A page of definitions', item: CapabilityDefinitionSchema, name: 'CapabilityDefinitionPage' },
    sort: { allowed: DEFINITION_SORTABLE, fallback: 'capability_name', uniqueKey: 'capability_name' },
    list: ({ query, principal, page }) =>
      listDefinitions(deps.db, principal.organization_id, page, { status: query.status, tag: query.tag }),
    view: definitionView,
  });
  registerDefine(capabilities, deps);
  registerImport(capabilities, deps);
  registerCapabilityMatchRoute(capabilities, deps);
  capabilities.get({
    path: '/v1/capabilities/{capability_id}',
    operationId: 'getCapabilityDefinition',
    summary: 'Read a capability definition',
    auth: 'platform:read',
    params: CapabilityParamsSchema,
    found: { description: 'The definition', schema: CapabilityDefinitionSchema },
    missing: { code: 'capability_not_found' },
    find: ({ params, principal }) => findOwnDefinition(deps.db, principal.organization_id, params.capability_id),
    view: definitionView,
  });
  registerPromote(capabilities, deps);
}

function registerDefine(capabilities: RouteGroup, deps: { db: Knex }): void {
  capabilities.route({
    method: 'post',
    path: '/v1/capabilities',
    operationId: 'defineCapability',
    summary: 'Define a capability',
    description:
      'capabilityId is capability://<org>/<name> (the org segment your slug or organization id, or left out); it is stored with your slug. ' +
      'implies names capabilities a holder also holds: matching follows implications.',
    request: { body: DefineCapabilitySchema },
    responses: {
      201: { description: 'The definition, proposed', schema: CapabilityDefinitionSchema },
      409: { description: 'capability_exists' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await defineCapability(deps.db, principal, body);
      if (!outcome.ok && outcome.code === 'invalid')
        throw new Problem('validation_failed', 'The capability URI names another organization', {
          errors: outcome.errors,
        });
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: definitionView(outcome.definition) };
    },
  });
}

function registerImport(capabilities: RouteGroup, deps: { db: Knex }): void {
  capabilities.route({
    method: 'post',
    path: '/v1/capabilities/import',
    operationId: 'importCapabilityDefinitions',
    summary: 'Import capability definitions',
    description:
      'The rule of POST /v1/orch/batch-route: each entry is checked on its own; the valid ones are imported (together, in one transaction) and ' +
      'each invalid one — a field error, an entry repeating an earlier one, or a capability already defined — is reported in errors by its ' +
      'index, while the others stand. status says which: imported (all), partial, or failed (none). The reply is 200 either way.',
    request: { body: ImportCapabilitiesSchema },
    responses: {
      200: { description: 'What was imported, and each entry refused', schema: ImportCapabilitiesResponseSchema },
    },
    handler: async ({ body, principal }) => {
      const items = body.capabilityDefinitions.map((raw, index) => {
        const parsed = DefineCapabilitySchema.safeParse(raw, { reportInput: true });
        return parsed.success ? { index, input: parsed.data } : { index, errors: fieldErrors(parsed.error, '') };
      });
      const { imported, failed } = await importCapabilities(deps.db, principal, items);
      const status = failed.length === 0 ? 'imported' : imported.length === 0 ? 'failed' : 'partial';
      return {
        status: 200,
        body: {
          status,
          importedCount: imported.length,
          imported: imported.map(definitionView),
          errors: failed.map((f) => ({ index: f.index, capabilityId: f.capabilityId ?? null, errors: f.errors })),
        },
      };
    },
  });
}

function registerPromote(capabilities: RouteGroup, deps: { db: Knex }): void {
  capabilities.route({
    method: 'post',
    path: '/v1/capabilities/{capability_id}/promote',
    operationId: 'promoteCapabilityDefinition',
    summary: 'Promote a capability definition into the organization’s ontology',
    description:
      'The definition becomes promoted, and a new version of the ontology package "organization" holds every promoted definition, with the reason.',
    request: { params: CapabilityParamsSchema, body: PromoteCapabilitySchema },
    responses: {
      200: {
        description: 'The promoted definition and the package version it is in',
        schema: PromotedCapabilitySchema,
      },
      404: { description: 'capability_not_found' },
      409: { description: 'capability_already_promoted' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await promoteCapability(deps.db, principal, params.capability_id, body.reason);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: 200, body: { data: definitionView(outcome.definition), ontology: outcome.ontology } };
    },
  });
}
