/**
 * The health of one organization of the deployment, for the people who run it: the platform's own bucket,
 * lowered by what the organization has stuck or failing. Pure: the facts come from db/organization-health.ts.
 */
export type HealthBucket = 'healthy' | 'degraded' | 'unhealthy';

export interface OrganizationCheck {
  name: 'approvals_past_expiry' | 'executions_failing' | 'executions_queued_stale' | 'connectors_needing_reconnect';
  status: 'pass' | 'fail';
  value: number;
  detail: string;
}

export interface HealthFacts {
  approvals_past_expiry: number;
  executions_failed_24h: number;
  executions_finished_24h: number;
  executions_queued_stale: number;
  installations_needing_reconnect: number;
}

/** Executions fail the check once at least this many finished in 24 hours and half or more of them failed. */
const FAILING_MIN_SAMPLE = 5;

export function organizationChecks(facts: HealthFacts): OrganizationCheck[] {
  const failing =
    facts.executions_finished_24h >= FAILING_MIN_SAMPLE &&
    facts.executions_failed_24h * 2 >= facts.executions_finished_24h;
  return [
    {
      name: 'approvals_past_expiry',
      status: facts.approvals_past_expiry > 0 ? 'fail' : 'pass',
      value: facts.approvals_past_expiry,
      detail: 'pending approvals whose expiry passed (their workflow did not end them)',
    },
    {
      name: 'executions_failing',
      status: failing ? 'fail' : 'pass',
      value: facts.executions_failed_24h,
      detail: `${facts.executions_failed_24h} of ${facts.executions_finished_24h} executions finished in 24 h failed`,
    },
    {
      name: 'executions_queued_stale',
      status: facts.executions_queued_stale > 0 ? 'fail' : 'pass',
      value: facts.executions_queued_stale,
      detail: 'executions queued for more than 15 minutes',
    },
    {
      name: 'connectors_needing_reconnect',
      status: facts.installations_needing_reconnect > 0 ? 'fail' : 'pass',
      value: facts.installations_needing_reconnect,
      detail: 'connector installations in needs_reauth (the provider refused the refresh token)',
    },
  ];
}

export function organizationBucket(platform: HealthBucket, checks: readonly OrganizationCheck[]): HealthBucket {
  if (platform === 'unhealthy') return 'unhealthy';
  return platform === 'degraded' || checks.some((check) => check.status === 'fail') ? 'degraded' : 'healthy';
}
