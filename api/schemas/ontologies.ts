/** Ontology packages: versioned sets of capability definitions and skill ontologies. */
import { CapabilityDefinitionSchema } from './capabilities';
import { z } from './zod';

export const OntologyParamsSchema = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/) });
export const OntologyVersionParamsSchema = OntologyParamsSchema.extend({
  version: z.string().regex(/^(latest|[1-9]\d{0,8})$/, 'must be a version number or latest'),
});

export const OntologyPackagesSchema = z
  .object({
    data: z.array(
      z.object({
        name: z.string(),
        latestVersion: z.number().int(),
        versions: z.number().int(),
        updatedAt: z.string(),
      }),
    ),
  })
  .openapi('OntologyPackages');

export const OntologyVersionSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    reason: z.string(),
    createdAt: z.string(),
    definitions: z.array(CapabilityDefinitionSchema),
  })
  .openapi('OntologyPackageVersion');

export const SkillOntologySchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    capabilities: z.array(
      z.object({
        capabilityId: z.string(),
        skills: z.array(z.string()),
        implies: z.array(z.string()).openapi({ description: 'Every capability it implies, transitively' }),
      }),
    ),
  })
  .openapi('SkillOntology');
