import type { Knex } from 'knex';
import { matchCapabilities } from '../../services/capabilities/match';
import { Problem } from '../problem';
import type { RouteGroup } from '../route-group';
import { MatchCapabilitiesResponseSchema, MatchCapabilitiesSchema } from '../schemas/capabilities';

export function registerCapabilityMatchRoute(capabilities: RouteGroup, deps: { db: Knex }): void {
  capabilities.route({
    method: 'post',
    path: '/v1/capabilities/match',
    operationId: 'matchCapabilities',
    summary: 'Match required capabilities to people and agents',
    description:
      'The one matcher routing uses too. A candidate matches when, for each required capability, a live grant of it or of a capability implying ' +
      'it has at least minWeight; an expired or revoked grant never counts, and an unavailable reviewer, an inactive agent or one at capacity never ' +
      'matches. A requirement with relaxAfterSeconds is dropped once taskContext.waitedSeconds reaches it. Ranked by score (mean weight), then ' +
      'load; each match says why. A missing requiredCapabilities is 400 with REQUIRED_FIELD_MISSING.',
    auth: 'platform:read',
    request: { body: MatchCapabilitiesSchema },
    responses: { 200: { description: 'The matches, best first', schema: MatchCapabilitiesResponseSchema } },
    handler: async ({ body, principal }) => {
      const context = body.taskContext;
      const outcome = await matchCapabilities(deps.db, principal.organization_id, {
        required: body.requiredCapabilities,
        waitedSeconds: typeof context.waitedSeconds === 'number' ? context.waitedSeconds : undefined,
        kinds: context.subjectTypes,
        exclude: context.exclude,
        limit: context.limit,
      });
      if (!outcome.ok)
        throw new Problem('validation_failed', 'A capability URI names another organization', {
          errors: outcome.errors,
        });
      return {
        status: 200,
        body: {
          matches: outcome.matches.map((match) => ({
            subjectType: match.kind,
            did: match.did,
            score: match.score,
            openAssignments: match.open_assignments,
            capacity: match.capacity,
            matched: match.met.map((met) => ({
              capabilityId: outcome.uri(met.capability),
              minWeight: met.min_weight,
              weight: met.weight,
              grantId: met.grant_id,
              via: met.via.map(outcome.uri),
            })),
            relaxed: match.relaxed.map(outcome.uri),
            reason: match.reason,
          })),
        },
      };
    },
  });
}
