/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded Postgres). */
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';

async function main(): Promise<void> {
  const database = await openDatabase(loadConfig(process.env), { serveEmbedded: false });
  try {
    const applied = await migrateToLatest(database.db);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
