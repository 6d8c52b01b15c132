/**
 * The one matcher: who (people and agents) may take a task needing some capabilities. A candidate matches
 * when, for every requirement, a live grant (not revoked, not expired) of the capability or of one implying
 * it has at least the requirement's weight; a requirement relaxed after a wait (relax_after_seconds, the way
 * contact centres drop "additional" skills when no one qualified is free) stops being needed once the task has
 * waited that long. Unavailable candidates and those at capacity never match. Each match says why.
 */
import { satisfiersOf, type Implications } from './graph';

export type SubjectKind = 'person' | 'agent';

export interface Requirement {
  capability: string;
  min_weight: number;
  /** Once the task has waited this long, the requirement is no longer needed (a held grant still counts). */
  relax_after_seconds?: number | undefined;
}

export interface HeldGrant {
  grant_id: string;
  capability: string;
  weight: number;
  /** Epoch milliseconds; null: never expires. */
  expires_at: number | null;
  revoked: boolean;
}

export interface Candidate {
  kind: SubjectKind;
  did: string;
  available: boolean;
  open_assignments: number;
  /** The most open assignments it takes; null: no limit. */
  capacity: number | null;
  grants: readonly HeldGrant[];
}

export interface MetRequirement {
  capability: string;
  min_weight: number;
  weight: number;
  grant_id: string;
  /** The held capability down to the required one; one element when held directly. */
  via: string[];
}

export interface Match {
  kind: SubjectKind;
  did: string;
  /** The mean weight over the requirements (a relaxed, unmet one counts 0). */
  score: number;
  open_assignments: number;
  capacity: number | null;
  met: MetRequirement[];
  /** Requirements relaxed after the wait and not met. */
  relaxed: string[];
  reason: string;
}

export interface MatchOptions {
  /** Epoch milliseconds: grants expiring at or before it are not live. */
  now: number;
  waited_seconds?: number;
  kinds?: readonly SubjectKind[];
  exclude?: readonly string[];
  /** weight: strongest first (the match API); load: least loaded first, then strongest (assignment). */
  order?: 'weight' | 'load';
  limit?: number;
}

const isLive = (grant: HeldGrant, now: number) =>
  !grant.revoked && (grant.expires_at === null || grant.expires_at > now);

export const hasRoom = (candidate: Pick<Candidate, 'capacity' | 'open_assignments'>) =>
  candidate.capacity === null || candidate.open_assignments < candidate.capacity;

export const isRelaxed = (requirement: Requirement, waitedSeconds: number) =>
  requirement.relax_after_seconds !== undefined && waitedSeconds >= requirement.relax_after_seconds;

/** The strongest live grant meeting one requirement, directly held preferred on equal weight. */
function bestGrant(
  grants: readonly HeldGrant[],
  satisfiers: ReadonlyMap<string, string[]>,
  now: number,
): { grant: HeldGrant; via: string[] } | undefined {
  let best: { grant: HeldGrant; via: string[] } | undefined;
  for (const grant of grants) {
    const via = satisfiers.get(grant.capability);
    if (!via || !isLive(grant, now)) continue;
    if (
      !best ||
      grant.weight > best.grant.weight ||
      (grant.weight === best.grant.weight && via.length < best.via.length)
    )
      best = { grant, via };
  }
  return best;
}

function explain(met: readonly MetRequirement[], relaxed: readonly string[], waited: number): string {
  const held = met.map((m) =>
    m.via.length === 1
      ? `holds ${m.capability} at ${m.weight} (≥ ${m.min_weight})`
      : `holds ${m.via[0] ?? m.capability} at ${m.weight}, which implies ${m.via.slice(1).join(' → ')} (≥ ${m.min_weight})`,
  );
  const dropped = relaxed.map((name) => `${name} relaxed after ${waited} s`);
  return [...held, ...dropped].join('; ') || 'nothing required';
}

/** Whether one candidate qualifies for the requirements, and how; undefined when it does not. */
export function qualify(
  candidate: Candidate,
  requirements: readonly Requirement[],
  satisfiers: ReadonlyMap<string, ReadonlyMap<string, string[]>>,
  options: Pick<MatchOptions, 'now' | 'waited_seconds'>,
): Match | undefined {
  const waited = options.waited_seconds ?? 0;
  const met: MetRequirement[] = [];
  const relaxed: string[] = [];
  let total = 0;
  for (const requirement of requirements) {
    const best = bestGrant(candidate.grants, satisfiers.get(requirement.capability) ?? new Map(), options.now);
    if (best && best.grant.weight >= requirement.min_weight) {
      met.push({
        capability: requirement.capability,
        min_weight: requirement.min_weight,
        weight: best.grant.weight,
        grant_id: best.grant.grant_id,
        via: best.via,
      });
      total += best.grant.weight;
    } else if (isRelaxed(requirement, waited)) relaxed.push(requirement.capability);
    else return undefined;
  }
  const { kind, did, open_assignments, capacity } = candidate;
  const score = requirements.length === 0 ? 0 : Math.round((total / requirements.length) * 1000) / 1000;
  return { kind, did, score, open_assignments, capacity, met, relaxed, reason: explain(met, relaxed, waited) };
}

/** For each requirement, the capabilities whose holders satisfy it (domain/capabilities/graph.ts). */
export function satisfierIndex(
  requirements: readonly Requirement[],
  implications: Implications,
): Map<string, Map<string, string[]>> {
  return new Map(requirements.map((r) => [r.capability, satisfiersOf(r.capability, implications)]));
}

const byWeight = (a: Match, b: Match) =>
  b.score - a.score || a.open_assignments - b.open_assignments || a.did.localeCompare(b.did);
const byLoad = (a: Match, b: Match) =>
  a.open_assignments - b.open_assignments || b.score - a.score || a.did.localeCompare(b.did);

/** The candidates that qualify, ranked, each with the reason it matched. */
export function matchCandidates(
  candidates: readonly Candidate[],
  requirements: readonly Requirement[],
  implications: Implications,
  options: MatchOptions,
): Match[] {
  return matchSatisfying(candidates, requirements, satisfierIndex(requirements, implications), options);
}

/**
 * matchCandidates with what satisfies each requirement already known (the organization's closure of
 * implications, read with the candidates); a requirement missing from `satisfiers` is satisfied by itself.
 */
export function matchSatisfying(
  candidates: readonly Candidate[],
  requirements: readonly Requirement[],
  satisfiers: ReadonlyMap<string, ReadonlyMap<string, string[]>>,
  options: MatchOptions,
): Match[] {
  const index = new Map(
    requirements.map((r) => [r.capability, satisfiers.get(r.capability) ?? new Map([[r.capability, [r.capability]]])]),
  );
  const exclude = new Set(options.exclude ?? []);
  const matches: Match[] = [];
  for (const candidate of candidates) {
    if (!candidate.available || !hasRoom(candidate) || exclude.has(candidate.did)) continue;
    if (options.kinds && !options.kinds.includes(candidate.kind)) continue;
    const match = qualify(candidate, requirements, index, options);
    if (match) matches.push(match);
  }
  matches.sort(options.order === 'load' ? byLoad : byWeight);
  return options.limit === undefined ? matches : matches.slice(0, options.limit);
}
