import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
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
    tls.clientCertPair = { crt: readFileSync(config.TEMPORAL_TLS_CERT_PATH), key: readFileSync(config.TEMPORAL_TLS_KEY_PATH) };
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

export async function connectTemporalClient(config: Config): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

export async function connectWorkerConnection(config: Config): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectionOptions(config));
}

const INDEXED_VALUE_TYPES = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
} as const;

/**
 * Registers the routing search attributes with a self-hosted server (the dev server registers them from
 * its flags; Temporal Cloud takes them through its own console or tcld instead).
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const searchAttributes = Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((key) => [key.name, INDEXED_VALUE_TYPES[key.type]]));
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
}
