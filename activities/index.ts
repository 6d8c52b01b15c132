import type { Knex } from 'knex';
import { createLedgerActivities } from './ledger';
import { createRoutingActivities } from './routing';

/** Every activity the worker registers, built from its dependencies. */
export function createActivities(deps: { db: Knex }) {
  return { ...createLedgerActivities(deps), ...createRoutingActivities(deps) };
}
