import type { Knex } from 'knex';
import * as foundation from './20261122000100_foundation';

/** Every migration in order; append new ones, never edit or reorder applied ones. */
export const MIGRATIONS: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000100_foundation', migration: foundation },
];
