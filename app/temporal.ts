import { readFileSync } from 'node:fs';
import { Client, Connection, type ClientOptions } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { ALL_SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import type { Config } from './config';

/** TLS for Temporal Cloud or a cluster: an API key implies TLS; cert and key paths add mTLS. */
export function temporalTls(config: Config): TLSConfig | boolean {
  const mtls = config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH;
  if (!config.TEMPORAL_TLS && !config.TEMPORAL_API_KEY && !mtls) return false;
  const tls: TLSConfig = {};
  if (config.TEMPORAL_TLS_SERVER_NAME) tls.serverNameOverride = config.TEMPORAL_TLS_SERVER_NAME;
  if (config.TEMPORAL_TLS_CA_PATH) tls.serverRootCACertificate = readFileSync(config.TEMPORAL_TLS_CA_PATH);
  if (config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH) {
    tls.clientCertPair = {
      crt: readFileSync(config.TEMPORAL_TLS_CERT_PATH),
      key: readFileSync(config.TEMPORAL_TLS_KEY_PATH),
    };
  }
  return Object.keys(tls).length > 0 ? tls : true;
}

export function temporalConnectionOptions(config: Config) {
  return {
    address: config.TEMPORAL_ADDRESS,
    tls: temporalTls(config),
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
  };
}

/** traced: workflow starts, signals, updates and queries get a span each, and carry the trace to the workflow in their headers. */
export async function connectTemporalClient(config: Config, options: { traced?: boolean } = {}): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...tracedClientOptions(options.traced ?? false),
  });
}

export function tracedClientOptions(traced: boolean): Pick<ClientOptions, 'interceptors'> {
  return traced ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {};
}

export async function connectWorkerConnection(config: Config): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(config));
}

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
  return new Map(Object.entries(customAttributes));
}

function typeName(code: number | undefined): string {
  return code === undefined ? 'none' : (IndexedValueType[code] ?? String(code)).replace('INDEXED_VALUE_TYPE_', '');
}

/** Registers the attributes the namespace lacks; returns what it did for each one. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<AttributeOutcome[]> {
  const before = await registeredTypes(connection, namespace);
  const conflicts = ALL_SEARCH_ATTRIBUTES.filter(
    (key) => before.has(key.name) && before.get(key.name) !== VALUE_TYPES[key.type].code,
  );
  if (conflicts.length > 0) {
    const listed = conflicts
      .map((key) => `${key.name} is ${typeName(before.get(key.name))}, not ${VALUE_TYPES[key.type].name}`)
      .join('; ');
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

/** Registers every search attribute on a fresh server in one call, as the tests' time-skipping servers need. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const searchAttributes = Object.fromEntries(
    ALL_SEARCH_ATTRIBUTES.map((key) => [key.name, VALUE_TYPES[key.type].code]),
  );
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
}
