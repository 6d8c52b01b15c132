import type { Knex } from 'knex';
import { agentGrantsSatisfying, candidatesSatisfying } from '../../db/capability-grants';
import { matchSatisfying, type Match, type Requirement, type SubjectKind } from '../../domain/capabilities/matcher';
import { capabilityUri, ownCapabilityName } from '../../domain/capabilities/uris';
import type { FieldProblem } from './definitions';
import { orgSegments } from './definitions';

export interface RequiredCapabilityInput {
  capabilityId: string;
  minWeight: number;
  relaxAfterSeconds?: number | undefined;
}

export interface MatchQuery {
  required: RequiredCapabilityInput[];
  waitedSeconds?: number | undefined;
  kinds?: SubjectKind[] | undefined;
  exclude?: string[] | undefined;
  limit: number;
  order?: 'weight' | 'load';
}

export type MatchOutcome =
  | { ok: true; matches: Match[]; uri: (name: string) => string }
  | { ok: false; code: 'invalid'; errors: FieldProblem[] };

/**
 * The one matcher over an organization's grants: the requirements' satisfying capabilities (implications
 * followed, from the organization's closure) and the live grants of them with their holders' availability
 * and load are read in one prepared statement, and domain/capabilities/matcher.ts decides.
 */
export async function matchCapabilities(db: Knex, organizationId: string, query: MatchQuery): Promise<MatchOutcome> {
  const segments = await orgSegments(db, organizationId);
  const names = query.required.map((need) => ownCapabilityName(need.capabilityId, segments.own));
  const errors = names.flatMap((name, index) =>
    name
      ? []
      : [
          {
            field: `requiredCapabilities.${index}`,
            code: 'invalid_capability_uri',
            message: 'must be capability://<org>/<name> whose <org> is your organization’s slug or id',
          },
        ],
  );
  if (errors.length > 0) return { ok: false, code: 'invalid', errors };
  const requirements: Requirement[] = query.required.map((need, index) => ({
    capability: names[index]!,
    min_weight: need.minWeight,
    relax_after_seconds: need.relaxAfterSeconds,
  }));
  const matches = await matchRequirements(db, organizationId, requirements, query);
  return { ok: true, matches, uri: (name) => capabilityUri(segments.preferred, name) };
}

/** The matcher over requirements already named by capability name: the match API's, routing's and the workforce's one path. */
export async function matchRequirements(
  db: Knex,
  organizationId: string,
  requirements: readonly Requirement[],
  options: Omit<MatchQuery, 'required' | 'limit'> & { limit?: number | undefined; now?: Date },
): Promise<Match[]> {
  const now = options.now ?? new Date();
  const { satisfiers, candidates } = await candidatesSatisfying(
    db,
    organizationId,
    requirements.map((r) => r.capability),
    now.toISOString(),
  );
  return matchSatisfying(candidates, requirements, satisfiers, {
    now: now.getTime(),
    waited_seconds: options.waitedSeconds ?? 0,
    kinds: options.kinds,
    exclude: options.exclude,
    order: options.order ?? 'weight',
    limit: options.limit,
  });
}

/**
 * The matcher asked about one platform agent (its DID): whether a live grant of the agent's satisfies the
 * requested capability URI, directly or by implication (the organization's closure, read in the same prepared
 * statement). A URI naming another organization satisfies nothing: its implications never apply here.
 */
export async function agentMatch(
  db: Knex,
  organizationId: string,
  agentDid: string,
  requestedUri: string,
  now = new Date(),
): Promise<Match | undefined> {
  const name = ownCapabilityName(requestedUri, (await orgSegments(db, organizationId)).own);
  return name === undefined ? undefined : agentMatchName(db, organizationId, agentDid, name, now);
}

/** agentMatch for a capability already named (as grants key it: lower-cased). */
export async function agentMatchName(
  db: Knex,
  organizationId: string,
  agentDid: string,
  name: string,
  now = new Date(),
): Promise<Match | undefined> {
  const requirements: Requirement[] = [{ capability: name, min_weight: 0 }];
  const { satisfiers, grants } = await agentGrantsSatisfying(db, organizationId, agentDid, [name], now.toISOString());
  const agent = { kind: 'agent' as const, did: agentDid, available: true, open_assignments: 0, capacity: null, grants };
  return matchSatisfying([agent], requirements, satisfiers, { now: now.getTime() })[0];
}
