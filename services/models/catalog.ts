import type { Knex } from 'knex';
import { modelsOfProviders, type ModelRow } from '../../db/models';

/**
 * The registry's models of the configured providers, read at most once per maxAgeMs: the reasoning path
 * does not read hundreds of rows per request. A change made through this instance applies at once
 * (invalidate); one made through another instance within maxAgeMs.
 */
export interface ModelCatalog {
  models(): Promise<ModelRow[]>;
  invalidate(): void;
}

export function createModelCatalog(
  db: Knex,
  providers: readonly string[],
  maxAgeMs: number,
  now: () => number = Date.now,
): ModelCatalog {
  let cached: { at: number; models: Promise<ModelRow[]> } | undefined;
  return {
    models() {
      if (!cached || now() - cached.at >= maxAgeMs) {
        const models = modelsOfProviders(db, providers);
        cached = { at: now(), models };
        // A failed read is not kept: the next request reads again.
        models.catch(() => {
          if (cached?.models === models) cached = undefined;
        });
      }
      return cached.models;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
