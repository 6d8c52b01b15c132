import knex, { type Knex } from 'knex';
import pg from 'pg';

// Return BIGINT (e.g. count(*)) as a JS number; our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
// Keep NUMERIC as number (confidence values); precision beyond double is not needed here.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export type Db = Knex;

/** Where knex's own warnings go; without one they are printed to the console, outside the JSON logs. */
export interface DbLogSink {
  warn(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
}

export function createDb(options: { connectionString: string; poolMax: number; applicationName?: string; logger?: DbLogSink }): Db {
  const { logger } = options;
  return knex({
    client: 'pg',
    connection: { connectionString: options.connectionString, application_name: options.applicationName ?? 'handoff' },
    pool: { min: 0, max: options.poolMax },
    acquireConnectionTimeout: 30_000,
    ...(logger
      ? {
          log: {
            warn: (message: unknown) => logger.warn(String(message), { component: 'knex' }),
            error: (message: unknown) => logger.error(String(message), { component: 'knex' }),
            deprecate: (method: string, alternative: string) => logger.warn(`${method} is deprecated, use ${alternative}`, { component: 'knex' }),
            debug: () => undefined,
          },
        }
      : {}),
  });
}

export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}
