import type { Knex } from 'knex';
import type { CapabilityDefinition } from '../../contracts/aggregates/capability';
import {
  findDefinition,
  insertDefinitions,
  insertOntologyVersion,
  promoteDefinition,
  promotedDefinitions,
} from '../../db/capabilities';
import { findOrganization } from '../../db/organizations';
import { capabilityUri, ownCapabilityName } from '../../domain/capabilities/uris';
import type { Principal } from '../identity/scopes';

/** The package every promotion versions: the organization's own ontology. */
export const ORGANIZATION_ONTOLOGY = 'organization';

export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export interface DefinitionInput {
  capabilityId: string;
  name: string;
  description: string;
  tags?: string[] | undefined;
  implies?: string[] | undefined;
  skills?: string[] | undefined;
  version?: string | undefined;
}

/** The org segments the organization's capability URIs may carry (its slug and id), the slug preferred. */
export async function orgSegments(db: Knex, organizationId: string): Promise<{ own: string[]; preferred: string }> {
  const slug = (await findOrganization(db, organizationId))?.slug;
  return slug ? { own: [slug, organizationId], preferred: slug } : { own: [organizationId], preferred: organizationId };
}

const notOwn = (field: string): FieldProblem => ({
  field,
  code: 'invalid_capability_uri',
  message: 'must be capability://<org>/<name> (or a bare name) whose <org> is your organization’s slug or id',
});

/** A definition from its input, or the field problems that keep it out. */
export function definitionOf(
  input: DefinitionInput,
  context: { segments: { own: string[]; preferred: string }; principal: Principal; now: string },
): { ok: true; definition: CapabilityDefinition } | { ok: false; errors: FieldProblem[] } {
  const { own, preferred } = context.segments;
  const name = ownCapabilityName(input.capabilityId, own);
  const implies = (input.implies ?? []).map((uri) => ownCapabilityName(uri, own));
  const errors = [
    ...(name ? [] : [notOwn('capabilityId')]),
    ...implies.flatMap((implied, index) => (implied ? [] : [notOwn(`implies.${index}`)])),
    ...(name && implies.includes(name)
      ? [{ field: 'implies', code: 'implies_itself', message: 'a capability cannot imply itself' }]
      : []),
  ];
  if (!name || errors.length > 0) return { ok: false, errors };
  const { principal, now } = context;
  return {
    ok: true,
    definition: {
      capability_id: capabilityUri(preferred, name),
      organization_id: principal.organization_id,
      capability_name: name,
      name: input.name,
      description: input.description,
      tags: input.tags ?? [],
      implies: [...new Set(implies as string[])],
      skills: input.skills ?? [],
      version: input.version ?? null,
      status: 'proposed',
      promoted_at: null,
      promote_reason: null,
      promoted_by: null,
      created_by: principal.id,
      created_at: now,
      updated_at: now,
    },
  };
}

export type DefineOutcome =
  | { ok: true; definition: CapabilityDefinition }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] }
  | { ok: false; code: 'capability_exists'; detail: string };

export async function defineCapability(db: Knex, principal: Principal, input: DefinitionInput): Promise<DefineOutcome> {
  const segments = await orgSegments(db, principal.organization_id);
  const made = definitionOf(input, { segments, principal, now: new Date().toISOString() });
  if (!made.ok) return { ok: false, code: 'invalid', errors: made.errors };
  const written = await insertDefinitions(db, [made.definition]);
  if (written.length === 0)
    return { ok: false, code: 'capability_exists', detail: `${made.definition.capability_id} is already defined` };
  return { ok: true, definition: made.definition };
}

export type ImportItemFailure = { index: number; capabilityId?: string | undefined; errors: FieldProblem[] };

/**
 * Imports definitions the way batch routing takes tasks: each item is checked on its own; the valid ones are
 * written (in one transaction), each invalid one (or one already defined, or repeated in the batch) is
 * reported by its index, and the others stand.
 */
export async function importCapabilities(
  db: Knex,
  principal: Principal,
  items: readonly { index: number; input?: DefinitionInput; errors?: FieldProblem[] }[],
): Promise<{ imported: CapabilityDefinition[]; failed: ImportItemFailure[] }> {
  const segments = await orgSegments(db, principal.organization_id);
  const now = new Date().toISOString();
  const failed: ImportItemFailure[] = [];
  const valid = new Map<string, { index: number; definition: CapabilityDefinition }>();
  for (const item of items) {
    const made = item.input ? definitionOf(item.input, { segments, principal, now }) : undefined;
    if (!made || !made.ok) {
      failed.push({
        index: item.index,
        capabilityId: item.input?.capabilityId,
        errors: made?.errors ?? item.errors ?? [],
      });
      continue;
    }
    const earlier = valid.get(made.definition.capability_name);
    if (earlier) {
      failed.push({ index: item.index, capabilityId: item.input!.capabilityId, errors: [duplicate(earlier.index)] });
      continue;
    }
    valid.set(made.definition.capability_name, { index: item.index, definition: made.definition });
  }
  const written = new Set(
    await db.transaction((trx) =>
      insertDefinitions(
        trx,
        [...valid.values()].map((v) => v.definition),
      ),
    ),
  );
  for (const { index, definition } of valid.values())
    if (!written.has(definition.capability_name))
      failed.push({
        index,
        capabilityId: definition.capability_id,
        errors: [alreadyDefined(definition.capability_id)],
      });
  failed.sort((a, b) => a.index - b.index);
  return {
    imported: [...valid.values()].map((v) => v.definition).filter((d) => written.has(d.capability_name)),
    failed,
  };
}

const duplicate = (earlier: number): FieldProblem => ({
  field: 'capabilityId',
  code: 'duplicate',
  message: `the same capability appears earlier in the import (index ${earlier})`,
});
const alreadyDefined = (uri: string): FieldProblem => ({
  field: 'capabilityId',
  code: 'capability_exists',
  message: `${uri} is already defined`,
});

/** Resolves a capability URI of the caller's organization to its stored definition. */
export async function findOwnDefinition(
  db: Knex,
  organizationId: string,
  uri: string,
): Promise<CapabilityDefinition | undefined> {
  const name = ownCapabilityName(uri, (await orgSegments(db, organizationId)).own);
  return name ? findDefinition(db, organizationId, name) : undefined;
}

export type PromoteOutcome =
  | { ok: true; definition: CapabilityDefinition; ontology: { name: string; version: number } }
  | { ok: false; code: 'capability_not_found' }
  | { ok: false; code: 'capability_already_promoted'; detail: string };

/** Promotes a definition into the organization's ontology: a new version of its package holds every promoted one. */
export async function promoteCapability(
  db: Knex,
  principal: Principal,
  uri: string,
  reason: string,
): Promise<PromoteOutcome> {
  const found = await findOwnDefinition(db, principal.organization_id, uri);
  if (!found) return { ok: false, code: 'capability_not_found' };
  if (found.status === 'promoted')
    return {
      ok: false,
      code: 'capability_already_promoted',
      detail: `${found.capability_id} was promoted at ${found.promoted_at ?? 'some point'}`,
    };
  const at = new Date().toISOString();
  const org = principal.organization_id;
  return db.transaction(async (trx) => {
    await promoteDefinition(trx, org, found.capability_name, { reason, by: principal.id, at });
    const definitions = await promotedDefinitions(trx, org);
    const version = await insertOntologyVersion(trx, {
      organization_id: org,
      name: ORGANIZATION_ONTOLOGY,
      definitions,
      reason,
      created_by: principal.id,
      created_at: at,
    });
    const definition = definitions.find((d) => d.capability_name === found.capability_name)!;
    return { ok: true as const, definition, ontology: { name: ORGANIZATION_ONTOLOGY, version } };
  });
}
