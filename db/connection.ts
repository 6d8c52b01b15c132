import knex, { type Knex } from 'knex';
import pg from 'pg';

// Return BIGINT (e.g. count(*)) as a JS number; our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
// Keep NUMERIC as number (confidence values); precision beyond double is not needed here.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export type Db = Knex;

export function createDb(options: { connectionString: string; poolMax: number; applicationName?: string }): Db {
  return knex({
    client: 'pg',
    connection: { connectionString: options.connectionString, application_name: options.applicationName ?? 'handoff' },
    pool: { min: 0, max: options.poolMax },
    acquireConnectionTimeout: 30_000,
  });
}

export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}
