import { z } from 'zod';
import { DEPLOYMENT_MODES, INSTALLATION_STATUSES } from '../../domain/marketplace/connectors';

/**
 * A connector installed in an organization: one per organization and connector, so a re-install keeps its
 * id. Its OAuth wait is owned by the install workflow (workflows/install-connector.ts), whose id is
 * `<installation_id>:<attempt>`; the service and the workflow's activities write the
 * connector_installations table (db/installations.ts), each change under the next version. Provider tokens
 * are not here: they are sealed in connector_tokens and never leave the service.
 */
export const Installation = z.object({
  installation_id: z.string().meta({ example: 'ins_3f0c…' }),
  organization_id: z.string(),
  connector_id: z.string(),
  version: z.number().int(),
  /** Each install (the first, and every re-install) is the next attempt; a state or callback of an older one changes nothing. */
  attempt: z.number().int(),
  status: z.enum(INSTALLATION_STATUSES),
  status_reason: z.string().nullable().meta({
    description:
      'Why the installation is in its status: access_denied, expired or exchange_failed (authorization_failed), invalid_grant (needs_reauth)',
  }),
  deployment_mode: z.enum(DEPLOYMENT_MODES),
  config: z.record(z.string(), z.unknown()),
  granted_permissions: z.array(z.string()),
  installed_by: z.string(),
  installed_at: z.date(),
  last_invocation_at: z.date().nullable(),
  /** While pending_oauth: when the authorization URL stops working. */
  oauth_expires_at: z.date().nullable(),
  uninstalled_at: z.date().nullable(),
  updated_at: z.date(),
});
export type Installation = z.infer<typeof Installation>;
