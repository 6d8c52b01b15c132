/**
 * The types of an organization's connectors (their configurations: services/organization-connectors/
 * configuration.ts). A connector that needs a provider's credentials is a `marketplace` connector over an
 * installation, whose tokens are sealed.
 */
export const ORGANIZATION_CONNECTOR_TYPES = ['webhook', 'rest_api', 'database', 'email', 'marketplace'] as const;
export type OrganizationConnectorType = (typeof ORGANIZATION_CONNECTOR_TYPES)[number];

/** What a connector of each type does; a marketplace connector has its catalog entry's capabilities. */
const TYPE_CAPABILITIES: Record<Exclude<OrganizationConnectorType, 'marketplace'>, (config: never) => string[]> = {
  webhook: () => ['events:deliver'],
  rest_api: () => ['http:request'],
  database: (config: { read_only: boolean }) =>
    config.read_only ? ['records:read'] : ['records:read', 'records:write'],
  email: () => ['mail:send'],
};

/** The capabilities a connector of a type other than marketplace has, from its checked configuration. */
export function typeCapabilities(
  type: Exclude<OrganizationConnectorType, 'marketplace'>,
  configuration: Record<string, unknown>,
): string[] {
  return TYPE_CAPABILITIES[type](configuration as never);
}
