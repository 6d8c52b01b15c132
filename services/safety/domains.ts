import type { Knex } from 'knex';
import { listSafetyDomains } from '../../db/safety';
import { DEFAULT_RISK_THRESHOLDS } from '../../domain/routing/risk';
import { resolveDomain, type DomainSafetyConfig } from '../../domain/safety/boundaries';

/**
 * The domain an action belongs to (the one named, else the one listing it as a task type, else general)
 * and the configuration it is judged by; an unconfigured domain is judged by general's.
 */
export async function domainConfigFor(
  db: Knex,
  organizationId: string,
  task: { task_type: string; context: Record<string, unknown> },
): Promise<{ domain: string; config: DomainSafetyConfig }> {
  const configs = await listSafetyDomains(db, organizationId);
  const domain = resolveDomain(task, configs);
  const found =
    configs.find((config) => config.domain === domain) ?? configs.find((config) => config.domain === 'general');
  return {
    domain,
    config: found
      ? {
          domain: found.domain,
          boundaries: found.boundaries,
          risk_thresholds: found.risk_thresholds,
          task_types: found.task_types,
        }
      : { domain, boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] },
  };
}
