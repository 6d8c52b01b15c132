import type { CapabilityDefinition } from './definition';

/** The marketplace’s: connector installations, invocations, ratings, the catalog, assets. */
export const MARKETPLACE_CAPABILITIES = {
  'connectors:read': {
    description: 'List and read the organization’s connector installations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'connectors:install': {
    description: 'Install, update and uninstall connectors for the organization',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'connectors:invoke': {
    description: 'Record an invocation of one of the organization’s active connector installations',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'assets:read': {
    description: 'List and read the marketplace assets the caller may see, with their review',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'assets:submit': {
    description: 'Submit a marketplace asset for review',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'connectors:rate': {
    description: 'Rate a connector through an active installation of the organization',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'connectors:publish': {
    description: 'Register or change a connector of the deployment’s catalog (shared by every organization)',
    risk: 'high',
    implied_by: 'cloud:admin:global',
  },
} as const satisfies Record<string, CapabilityDefinition>;
