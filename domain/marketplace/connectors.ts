/** What the connector catalog and its installations may hold, and the rules an install is checked against. */
export const PRICING_MODELS = ['free', 'paid', 'freemium'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];

export const DEPLOYMENT_MODES = ['cloud', 'hybrid', 'self-hosted'] as const;
export type DeploymentMode = (typeof DEPLOYMENT_MODES)[number];

/**
 * The spec's four statuses, and two it leaves unnamed: `needs_reauth` (the provider refused the refresh
 * token; a re-install reconnects) and `authorization_failed` (the person denied access, the 30-minute
 * window passed, or the code exchange failed; status_reason says which).
 */
export const INSTALLATION_STATUSES = [
  'pending_oauth',
  'active',
  'suspended',
  'uninstalled',
  'needs_reauth',
  'authorization_failed',
] as const;
export type InstallationStatus = (typeof INSTALLATION_STATUSES)[number];

export const AUTHORIZATION_FAILURES = ['access_denied', 'expired', 'exchange_failed'] as const;
export type AuthorizationFailure = (typeof AUTHORIZATION_FAILURES)[number];

export interface InstallRequest {
  deployment_mode: DeploymentMode;
  granted_permissions: readonly string[];
}

export interface InstallableConnector {
  deployment_modes: readonly string[];
  oauth: { required: boolean; scopes: readonly string[] } | null;
}

export type InstallRefusal =
  { code: 'deployment_mode_not_offered'; detail: string } | { code: 'permissions_not_offered'; detail: string };

/** Why a connector cannot be installed as asked: a mode it does not offer, or permissions beyond its scopes. */
export function installRefusal(connector: InstallableConnector, request: InstallRequest): InstallRefusal | undefined {
  if (!connector.deployment_modes.includes(request.deployment_mode))
    return {
      code: 'deployment_mode_not_offered',
      detail: `The connector offers ${connector.deployment_modes.join(', ')}, not ${request.deployment_mode}`,
    };
  const scopes = connector.oauth?.scopes ?? [];
  const beyond = request.granted_permissions.filter((permission) => !scopes.includes(permission));
  if (beyond.length > 0)
    return {
      code: 'permissions_not_offered',
      detail: `granted_permissions must be among the connector's scopes; not among them: ${beyond.join(', ')}`,
    };
  return undefined;
}

/** Whether an install goes through the provider's consent (pending_oauth) or is active at once. */
export function needsAuthorization(connector: InstallableConnector): boolean {
  return connector.oauth?.required === true;
}

/** Whether an installation in this status may be installed again (keeping its id), or is still in the middle of one. */
export function reinstallable(status: InstallationStatus): boolean {
  return status !== 'pending_oauth';
}

/** An access token is refreshed once it expires within this window, before a call would find it expired. */
export function tokenNeedsRefresh(expiresAtMs: number | null, nowMs: number, refreshAheadMs: number): boolean {
  return expiresAtMs !== null && expiresAtMs - nowMs <= refreshAheadMs;
}
