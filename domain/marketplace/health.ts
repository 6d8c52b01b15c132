import type { InstallationStatus } from './connectors';

/**
 * Health read from recorded calls (connector_invocations), not from a probe: the evidence is what the
 * organizations' calls of the last day met. `unknown` says there is none, rather than showing `healthy`.
 */
export const HEALTH_WINDOW_HOURS = 24;

export const HEALTH_STATUSES = ['healthy', 'degraded', 'disconnected', 'unknown'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** A connector is never disconnected: only an installation is. */
export const CONNECTOR_HEALTH_STATUSES = ['healthy', 'degraded', 'unknown'] as const;
export type ConnectorHealthStatus = (typeof CONNECTOR_HEALTH_STATUSES)[number];

/** One installation's calls within the window. */
export interface RecordedCalls {
  calls: number;
  failed: number;
}

/** Half or more of an installation's calls in the window failed. */
export function failing(recorded: RecordedCalls): boolean {
  return recorded.calls > 0 && recorded.failed * 2 >= recorded.calls;
}

/**
 * An installation's health: disconnected while only the person's consent can bring it back (its tokens are
 * gone or were never issued); otherwise read from its own calls when it is active, unknown when it is not.
 */
export function installationHealth(status: InstallationStatus, recorded: RecordedCalls): HealthStatus {
  if (status === 'needs_reauth' || status === 'authorization_failed') return 'disconnected';
  if (status !== 'active' || recorded.calls === 0) return 'unknown';
  return failing(recorded) ? 'degraded' : 'healthy';
}

/**
 * A connector's health across the deployment: one vote per installation that called it in the window (as
 * ratings are one per installation), so one organization's failures cannot outvote the others'; degraded
 * when half or more of those installations are failing, unknown when none called it.
 */
export function connectorHealth(votes: { reporting: number; failing: number }): ConnectorHealthStatus {
  if (votes.reporting === 0) return 'unknown';
  return votes.failing * 2 >= votes.reporting ? 'degraded' : 'healthy';
}
