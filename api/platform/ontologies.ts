import type { Knex } from 'knex';
import { findOntologyVersion, listOntologyPackages, type OntologyPackageRow } from '../../db/capabilities';
import { impliedBy } from '../../domain/capabilities/graph';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { definitionView } from '../schemas/capabilities';
import {
  OntologyPackagesSchema,
  OntologyParamsSchema,
  OntologyVersionParamsSchema,
  OntologyVersionSchema,
  SkillOntologySchema,
} from '../schemas/ontologies';

const versionOf = (raw: string) => (raw === 'latest' ? ('latest' as const) : Number(raw));

/** A package's skill ontology: each capability with its skills and everything it implies. */
function skillOntology(row: OntologyPackageRow) {
  const implications = new Map(row.definitions.map((d) => [d.capability_name, d.implies]));
  const uriOf = new Map(row.definitions.map((d) => [d.capability_name, d.capability_id]));
  return {
    name: row.name,
    version: row.version,
    capabilities: row.definitions.map((d) => ({
      capabilityId: d.capability_id,
      skills: d.skills,
      implies: impliedBy(d.capability_name, implications)
        .filter((name) => name !== d.capability_name)
        .map((name) => uriOf.get(name) ?? d.capability_id.replace(/[^/]+$/, name)),
    })),
  };
}

/** Ontology packages: versioned sets of promoted definitions (one version per promotion), and their skill ontologies. */
export function registerOntologyRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const ontologies = routeGroup(api, { tags: ['Capabilities'], auth: 'platform:read', rateLimit: 'default' });
  ontologies.route({
    method: 'get',
    path: '/v1/ontology-packages',
    operationId: 'listOntologyPackages',
    summary: 'List ontology packages',
    description:
      'Each package with its newest version. Promoting a capability makes a new version of the package "organization".',
    responses: { 200: { description: 'The packages', schema: OntologyPackagesSchema } },
    handler: async ({ principal }) => ({
      status: 200,
      body: {
        data: (await listOntologyPackages(deps.db, principal.organization_id)).map((p) => ({
          name: p.name,
          latestVersion: p.latest_version,
          versions: p.versions,
          updatedAt: p.updated_at,
        })),
      },
    }),
  });
  ontologies.get({
    path: '/v1/ontology-packages/{name}/versions/{version}',
    operationId: 'getOntologyPackageVersion',
    summary: 'Read a version of an ontology package',
    params: OntologyVersionParamsSchema,
    found: { description: 'The version: its definitions as promoted then', schema: OntologyVersionSchema },
    missing: { code: 'ontology_package_not_found' },
    find: ({ params, principal }) =>
      findOntologyVersion(deps.db, principal.organization_id, params.name, versionOf(params.version)),
    view: (row) => ({
      name: row.name,
      version: row.version,
      reason: row.reason,
      createdAt: row.created_at,
      definitions: row.definitions.map(definitionView),
    }),
  });
  ontologies.get({
    path: '/v1/ontology-packages/{name}/skills',
    operationId: 'getSkillOntology',
    summary: 'Read the skill ontology of a package’s newest version',
    params: OntologyParamsSchema,
    found: { description: 'Each capability with its skills and what it implies', schema: SkillOntologySchema },
    missing: { code: 'ontology_package_not_found' },
    find: ({ params, principal }) => findOntologyVersion(deps.db, principal.organization_id, params.name, 'latest'),
    view: skillOntology,
  });
}
