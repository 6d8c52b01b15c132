/**
 * `npm run temporal:search-attributes`: registers every search attribute of contracts/search-attributes.ts
 * with the configured namespace, connecting as the service does (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_TLS*, TEMPORAL_API_KEY). Run it once per namespace before the first worker starts, and again
 * after an upgrade that adds attributes: those already registered with their type are left as they are.
 * An attribute registered with another type is an error it cannot fix (remove it, then run again).
 *
 * Exit status: 0 every attribute registered, 1 otherwise.
 */
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { ALL_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { loadConfig } from '../app/config';
import { temporalConnectionOptions } from '../app/temporal';

const { IndexedValueType } = temporal.api.enums.v1;

const VALUE_TYPES = {
  KEYWORD: { code: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, name: 'Keyword' },
  DOUBLE: { code: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE, name: 'Double' },
} as const;

export interface AttributeOutcome {
  name: string;
  type: string;
  outcome: 'registered' | 'already registered';
}

export class SearchAttributeConflict extends Error {
  override name = 'SearchAttributeConflict';
}

async function registeredTypes(connection: Connection, namespace: string): Promise<Map<string, number>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return new Map(Object.entries(customAttributes ?? {}).map(([name, type]) => [name, Number(type)]));
}

function typeName(code: number | undefined): string {
  return code === undefined ? 'none' : (IndexedValueType[code] ?? String(code)).replace('INDEXED_VALUE_TYPE_', '');
}

/** Registers the attributes the namespace lacks; returns what it did for each one. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<AttributeOutcome[]> {
  const before = await registeredTypes(connection, namespace);
  const conflicts = ALL_SEARCH_ATTRIBUTES.filter((key) => before.has(key.name) && before.get(key.name) !== VALUE_TYPES[key.type].code);
  if (conflicts.length > 0) {
    const listed = conflicts.map((key) => `${key.name} is ${typeName(before.get(key.name))}, not ${VALUE_TYPES[key.type].name}`).join('; ');
    throw new SearchAttributeConflict(`Namespace ${namespace}: ${listed}`);
  }
  const missing = ALL_SEARCH_ATTRIBUTES.filter((key) => !before.has(key.name));
  if (missing.length > 0) {
    const searchAttributes = Object.fromEntries(missing.map((key) => [key.name, VALUE_TYPES[key.type].code]));
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    } catch (error) {
      // Another run may have registered them in the meantime; what counts is that they are there now.
      const after = await registeredTypes(connection, namespace);
      if (!missing.every((key) => after.get(key.name) === VALUE_TYPES[key.type].code)) throw error;
    }
  }
  return ALL_SEARCH_ATTRIBUTES.map((key) => ({
    name: key.name,
    type: VALUE_TYPES[key.type].name,
    outcome: before.has(key.name) ? 'already registered' : 'registered',
  }));
}

const CLOUD_HINT = 'Temporal Cloud takes search attributes in its web UI or with `tcld namespace search-attributes add`, not through the operator API.';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const connection = await Connection.connect(temporalConnectionOptions(config));
  try {
    const outcomes = await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE).catch((error: unknown) => {
      if (config.TEMPORAL_API_KEY && !(error instanceof SearchAttributeConflict)) throw new Error(`${(error as Error).message}\n${CLOUD_HINT}`);
      throw error;
    });
    console.log(`Search attributes of namespace ${config.TEMPORAL_NAMESPACE} at ${config.TEMPORAL_ADDRESS}:`);
    for (const { name, type, outcome } of outcomes) console.log(`  ${name.padEnd(28)} ${type.padEnd(8)} ${outcome}`);
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
