import type { Knex } from 'knex';
import * as foundation from './20261122000100_foundation';
import * as orchestration from './20261123000100_orchestration';

/** Every migration in order; append new ones, never edit or reorder applied ones. */
export const MIGRATIONS: ReadonlyArray<{ name: string; migration: Knex.Migration }> = [
  { name: '20261122000100_foundation', migration: foundation },
  { name: '20261123000100_orchestration', migration: orchestration },
];
