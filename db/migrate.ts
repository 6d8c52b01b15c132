import type { Knex } from 'knex';
import { MIGRATIONS } from '../migrations';

/** Migrations are listed in code so the same list runs under tsx, jest and compiled JavaScript. */
export const migrationSource: Knex.MigrationSource<{ name: string; migration: Knex.Migration }> = {
  getMigrations: () => Promise.resolve([...MIGRATIONS]),
  getMigrationName: (entry) => entry.name,
  getMigration: (entry) => Promise.resolve(entry.migration),
};

export async function migrateToLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
