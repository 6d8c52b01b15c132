/**
 * `npm run keys:rotate`: a new Ed25519 key signs tokens from now on; the old ones stay in the JWKS until
 * the longest-lived token they may have signed has expired.
 */
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';
import { rotateSigningKey } from '../services/auth/key-ring';

/** The dev supervisor's admin token lives 12 h, longer than the token endpoint's default hour. */
const LONGEST_TOKEN_TTL_SECONDS = 12 * 60 * 60;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const database = await openDatabase(config, { serveEmbedded: false });
  try {
    await migrateToLatest(database.db);
    const kid = await rotateSigningKey(database.db, { maxTokenTtlSeconds: Math.max(config.AUTH_ACCESS_TOKEN_TTL_SECONDS, LONGEST_TOKEN_TTL_SECONDS) });
    console.log(`New signing key ${kid}; API instances pick it up within a minute.`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
