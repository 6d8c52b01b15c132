import type { Knex } from 'knex';
import { installationUsage, recordInvocation } from '../../services/connectors/usage';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { InstallationIdParamsSchema } from '../schemas/installations';
import {
  InstallationUsageSchema,
  InvocationSchema,
  invocationView,
  RecordInvocationSchema,
  usageView,
} from '../schemas/usage';

/** An installation's recorded invocations: record one, and read the last 30 days of them. */
export function registerInstallationUsageRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const usage = routeGroup(api, { tags: ['Marketplace'], auth: 'platform:write', rateLimit: 'default' });
  usage.route({
    method: 'post',
    path: '/v1/marketplace/installations/{installation_id}/invocations',
    operationId: 'recordInstallationInvocation',
    summary: 'Record one invocation of an active installation',
    description:
      'The usage statistics, the installation’s invocation_count_30d and last_invocation_at, and the catalog’s ' +
      'invocation_count_30d are computed from these records. Only an active installation records (409 installation_not_active).',
    request: { params: InstallationIdParamsSchema, body: RecordInvocationSchema },
    responses: {
      201: { description: 'Recorded', schema: InvocationSchema },
      404: { description: 'installation_not_found' },
      409: { description: 'installation_not_active' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await recordInvocation(deps.db, principal, params.installation_id, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: invocationView(outcome.invocation) };
    },
  });
  usage.route({
    method: 'get',
    path: '/v1/marketplace/installations/{installation_id}/usage',
    operationId: 'getInstallationUsage',
    summary: 'Usage statistics of an installation: the last 30 days, day by day',
    description:
      'Totals over the 30 UTC days ending today, and one entry per day, oldest first, zero-filled. A failed ' +
      'invocation counts in failed_invocations; durations are in milliseconds, null for a day without invocations.',
    auth: 'platform:read',
    request: { params: InstallationIdParamsSchema },
    responses: {
      200: { description: 'The usage statistics', schema: InstallationUsageSchema },
      404: { description: 'installation_not_found' },
    },
    handler: async ({ params, principal }) => {
      const found = await installationUsage(deps.db, principal, params.installation_id);
      if (!found) throw new Problem('installation_not_found', `No installation ${params.installation_id}`);
      return { status: 200, body: usageView(found.installation, found.statistics, found.days) };
    },
  });
}
