/**
 * `npm run keys:rotate`: a new Ed25519 key signs tokens from now on; the old ones stay in the JWKS until
 * the longest-lived token they may have signed has expired.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';
import { rotateSigningKey } from '../services/identity/issuance/key-ring';
import { secretKeysFrom } from '../lib/secret-box';
import { DEV_SECRETS_KEY_FILE, devSecretsKey } from './dev-secrets-key';

/** The dev supervisor's admin token lives 12 h, longer than the token endpoint's default hour. */
const LONGEST_TOKEN_TTL_SECONDS = 12 * 60 * 60;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const database = await openDatabase(config, { serveEmbedded: false });
  try {
    await migrateToLatest(database.db);
    // Sealed with the key the services seal with: the configured one, or the one `npm start` generated under DATA_DIR.
    const dataDir = path.resolve(config.DATA_DIR);
    const current =
      config.SECRETS_ENCRYPTION_KEY ??
      (existsSync(path.join(dataDir, DEV_SECRETS_KEY_FILE)) ? devSecretsKey(dataDir).key : undefined);
    const secretKeys = secretKeysFrom(current, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS);
    const kid = await rotateSigningKey(database.db, {
      maxTokenTtlSeconds: Math.max(config.AUTH_ACCESS_TOKEN_TTL_SECONDS, LONGEST_TOKEN_TTL_SECONDS),
      secretKeys,
    });
    console.log(`New signing key ${kid}; API instances pick it up within a minute.`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
