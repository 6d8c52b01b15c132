import type { Knex } from 'knex';
import { CapabilityDefinition } from '../contracts/aggregates/capability';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

const definitionRow = rowOf(CapabilityDefinition).of;

/** A row with its instants as ISO 8601 and its JSON columns parsed, as the aggregate holds them. */
function fromRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? value.toISOString() : value;
  return out;
}
export const aggregateOf = fromRow;

/** Writes new definitions; an existing name is left as it is. The names written. */
export async function insertDefinitions(db: Knex, definitions: readonly CapabilityDefinition[]): Promise<string[]> {
  if (definitions.length === 0) return [];
  const rows = await db('capability_definitions')
    .insert(definitions.map(definitionRow))
    .onConflict(['organization_id', 'capability_name'])
    .ignore()
    .returning('capability_name');
  return rows.map((row: { capability_name: string }) => row.capability_name);
}

export async function findDefinition(
  db: Knex,
  organizationId: string,
  name: string,
): Promise<CapabilityDefinition | undefined> {
  const row = await db('capability_definitions')
    .where({ organization_id: organizationId, capability_name: name })
    .first<Record<string, unknown> | undefined>();
  return row && (fromRow(row) as unknown as CapabilityDefinition);
}

/** The names among `names` the organization defines. */
export async function definedNames(db: Knex, organizationId: string, names: readonly string[]): Promise<Set<string>> {
  const rows = await db('capability_definitions')
    .where({ organization_id: organizationId })
    .whereIn('capability_name', [...new Set(names)])
    .select<{ capability_name: string }[]>('capability_name');
  return new Set(rows.map((row) => row.capability_name));
}

export const DEFINITION_SORTABLE = { capability_name: 'capability_name', created_at: 'created_at', status: 'status' };

export async function listDefinitions(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filters: { status?: string | undefined; tag?: string | undefined },
): Promise<Page<CapabilityDefinition>> {
  const query = db('capability_definitions').select('*').where({ organization_id: organizationId });
  if (filters.status) void query.andWhere({ status: filters.status });
  if (filters.tag) void query.andWhereRaw('tags \\? ?', [filters.tag]);
  const found = await paginate<Record<string, unknown>>(query, page);
  return { ...found, data: found.data.map((row) => fromRow(row) as unknown as CapabilityDefinition) };
}

/**
 * What each of `held` implies, transitively (the organization's closure, read from the holder's side): what a
 * holder of it may be matched for. A name implying nothing is absent.
 */
export async function impliedByHeld(
  db: Knex,
  organizationId: string,
  held: readonly string[],
): Promise<Map<string, string[]>> {
  const rows = await db('capability_implications')
    .where({ organization_id: organizationId })
    .whereIn('capability_name', [...held])
    .orderBy(['capability_name', 'implied_name'])
    .select<{ capability_name: string; implied_name: string }[]>('capability_name', 'implied_name');
  const implied = new Map<string, string[]>();
  for (const row of rows)
    implied.set(row.capability_name, [...(implied.get(row.capability_name) ?? []), row.implied_name]);
  return implied;
}

export async function promoteDefinition(
  trx: Knex.Transaction,
  organizationId: string,
  name: string,
  promotion: { reason: string; by: string; at: string },
): Promise<void> {
  await trx('capability_definitions').where({ organization_id: organizationId, capability_name: name }).update({
    status: 'promoted',
    promoted_at: promotion.at,
    promote_reason: promotion.reason,
    promoted_by: promotion.by,
    updated_at: promotion.at,
  });
}

export async function promotedDefinitions(trx: Knex, organizationId: string): Promise<CapabilityDefinition[]> {
  const rows = await trx('capability_definitions')
    .where({ organization_id: organizationId, status: 'promoted' })
    .orderBy('capability_name')
    .select<Record<string, unknown>[]>('*');
  return rows.map((row) => fromRow(row) as unknown as CapabilityDefinition);
}

export interface OntologyPackageRow {
  organization_id: string;
  name: string;
  version: number;
  definitions: CapabilityDefinition[];
  reason: string;
  created_by: string;
  created_at: string;
}

/** The next version of a package, numbered after the last under a lock on the organization's package rows. */
export async function insertOntologyVersion(
  trx: Knex.Transaction,
  row: Omit<OntologyPackageRow, 'version'>,
): Promise<number> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`ontology:${row.organization_id}:${row.name}`]);
  const last = await trx('ontology_packages')
    .where({ organization_id: row.organization_id, name: row.name })
    .max<{ max: number | null }>('version as max')
    .first();
  const version = (last?.max ?? 0) + 1;
  await trx('ontology_packages').insert({ ...row, version, definitions: JSON.stringify(row.definitions) });
  return version;
}

/** Each package's newest version. */
export async function listOntologyPackages(
  db: Knex,
  organizationId: string,
): Promise<{ name: string; latest_version: number; updated_at: string; versions: number }[]> {
  const rows = await db('ontology_packages')
    .where({ organization_id: organizationId })
    .groupBy('name')
    .orderBy('name')
    .select<Record<string, unknown>[]>(
      'name',
      db.raw('max(version)::int as latest_version'),
      db.raw('count(*)::int as versions'),
      db.raw('max(created_at) as updated_at'),
    );
  return rows.map(
    (row) => fromRow(row) as unknown as { name: string; latest_version: number; updated_at: string; versions: number },
  );
}

export async function findOntologyVersion(
  db: Knex,
  organizationId: string,
  name: string,
  version: number | 'latest',
): Promise<OntologyPackageRow | undefined> {
  const query = db('ontology_packages').where({ organization_id: organizationId, name });
  if (version === 'latest') void query.orderBy('version', 'desc');
  else void query.andWhere({ version });
  const row = await query.first<Record<string, unknown> | undefined>();
  return row && (fromRow(row) as unknown as OntologyPackageRow);
}
