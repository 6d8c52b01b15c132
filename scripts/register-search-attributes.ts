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
import { loadConfig } from '../app/config';
import { ensureSearchAttributes, SearchAttributeConflict, temporalConnectionOptions } from '../app/temporal';

const CLOUD_HINT =
  'Temporal Cloud takes search attributes in its web UI or with `tcld namespace search-attributes add`, not through the operator API.';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const connection = await Connection.connect(temporalConnectionOptions(config));
  try {
    const outcomes = await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE).catch((error: unknown) => {
      if (config.TEMPORAL_API_KEY && !(error instanceof SearchAttributeConflict))
        throw new Error(`${(error as Error).message}\n${CLOUD_HINT}`);
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
