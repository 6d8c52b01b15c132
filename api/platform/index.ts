import { registerAssetRoutes } from './assets';
import { registerCoverRoutes } from './covers';
import type { AppDeps } from '../app-deps';
import type { ApiBuilder } from '../route';
import { registerAgentRoutes } from './agents';
import { registerApprovalRoutes } from './approvals';
import { registerEscalationRoutes } from './escalations';
import { registerExecutionRoutes } from './executions';
import { registerPlatformHealthRoutes } from './health';
import { registerPassportRoutes } from './passports';
import { registerReasoningPlatformRoutes } from './reasoning-registry';
import { registerTaskRoutes } from './tasks';
import { registerWorkflowRoutes } from './workflows';
import { registerCapabilityRoutes } from './capabilities';
import { registerCapabilityGrantRoutes } from './capability-grants';
import { registerCapabilityProofRoutes } from './capability-proofs';
import { registerOntologyRoutes } from './ontologies';
import { registerCourseRoutes } from './courses';

/** The part of the app's dependencies the platform routes use. */
export type PlatformRouteDeps = Pick<
  AppDeps,
  'db' | 'temporal' | 'keyRing' | 'logger' | 'revocations' | 'decisions' | 'credentials'
> & {
  settings: Pick<
    AppDeps['settings'],
    | 'taskQueue'
    | 'token'
    | 'platform'
    | 'escalationTimeoutsSeconds'
    | 'autonomousEscalationWindowSeconds'
    | 'reviewWindowSeconds'
    | 'passports'
  >;
};

/** Every route of the platform API (/v1 outside /v1/orch). */
export function registerPlatformRoutes(api: ApiBuilder, deps: PlatformRouteDeps): void {
  const services = {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue: deps.settings.taskQueue,
    settings: deps.settings.platform,
  };
  registerApprovalRoutes(api, { ...services, decisions: deps.decisions, held: deps.credentials });
  registerCoverRoutes(api, services);
  registerAssetRoutes(api, services);
  registerEscalationRoutes(api, services);
  registerAgentRoutes(api, services);
  registerExecutionRoutes(api, { ...services, keyRing: deps.keyRing, token: deps.settings.token });
  registerWorkflowRoutes(api, services);
  registerPlatformHealthRoutes(api, services);
  registerReasoningPlatformRoutes(api, {
    db: deps.db,
    logger: deps.logger,
    settings: deps.settings.platform.reasoning,
  });
  const { taskQueue, escalationTimeoutsSeconds, autonomousEscalationWindowSeconds, reviewWindowSeconds } =
    deps.settings;
  registerTaskRoutes(api, {
    db: deps.db,
    temporal: deps.temporal,
    taskQueue,
    escalationTimeoutsSeconds,
    autonomousEscalationWindowSeconds,
    reviewWindowSeconds,
  });
  registerPassportRoutes(api, {
    db: deps.db,
    keyRing: deps.keyRing,
    token: deps.settings.token,
    settings: deps.settings.passports,
    revocations: deps.revocations,
  });
  registerCapabilityRoutes(api, { db: deps.db });
  registerCapabilityGrantRoutes(api, { db: deps.db });
  registerCapabilityProofRoutes(api, { db: deps.db, settings: deps.settings.passports });
  registerOntologyRoutes(api, { db: deps.db });
  registerCourseRoutes(api, { db: deps.db });
}
