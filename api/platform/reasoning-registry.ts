import type { Knex } from 'knex';
import type { Logger } from '../../lib/logger';
import { createModelCatalog } from '../../services/models/catalog';
import { createInterruptedCallSweeper } from '../../services/reasoning/interrupted';
import type { ReasoningSettings } from '../../services/reasoning/settings';
import type { ApiBuilder } from '../route';
import { registerModelRoutes } from './models';
import { registerPromptRoutes } from './prompts';
import { registerReasoningRoutes } from './reasoning';

/** Models, reasoning and prompts, sharing one cached view of the registry (so that a change here applies at once). */
export function registerReasoningPlatformRoutes(
  api: ApiBuilder,
  deps: { db: Knex; logger: Logger; settings: ReasoningSettings },
): void {
  const catalog = createModelCatalog(deps.db, Object.keys(deps.settings.providers), deps.settings.registryCacheMs);
  registerModelRoutes(api, { db: deps.db, catalog });
  registerReasoningRoutes(api, {
    db: deps.db,
    catalog,
    settings: deps.settings,
    logger: deps.logger,
    sweeper: createInterruptedCallSweeper(deps),
  });
  registerPromptRoutes(api, { db: deps.db });
}
