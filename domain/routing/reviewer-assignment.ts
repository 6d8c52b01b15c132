import {
  hasRoom,
  qualify,
  satisfierIndex,
  type Candidate,
  type Match,
  type Requirement,
} from '../capabilities/matcher';
import type { RequiredCapability } from './decision';

export interface Reviewer {
  did: string;
  display_name: string;
  /** capability name → weight in [0, 1]: the reviewer's live grants, with what they imply (db/reviewers.ts). */
  capabilities: Record<string, number>;
  /** 1 is the first line; higher levels are who a routing escalates to. */
  chain_level: number;
  available: boolean;
}

export interface CapabilityMatch {
  capability_id: string;
  weight: number;
}

/**
 * A cover in force for a reviewer: the colleague (an available reviewer) who takes what is assigned to them,
 * limited to routings whose every required capability is one of `capabilities` (null: all of them).
 */
export interface ReviewerCover {
  covering_did: string;
  capabilities: string[] | null;
}

/** A reviewer with their current load: open assignments, and the most they take (null: no limit). */
export interface LoadedReviewer extends Reviewer {
  open_assignments: number;
  capacity: number | null;
  /** The covers in force for them at the load, newest first (db/reviewers.ts); absent when none. */
  covers?: ReviewerCover[] | undefined;
}

export interface Assignment {
  did: string;
  chain_level: number;
  /** The reviewer chosen, when `did` is the colleague covering for them. */
  covering_for?: string | undefined;
  capabilities_matched: CapabilityMatch[];
  /** Required capabilities dropped after the routing's wait (relax_after_seconds) that the reviewer lacks. */
  capabilities_relaxed?: string[] | undefined;
}

/** Routing's needs as the capabilities matcher's requirements (grants key capability names lower-cased). */
export const requirementsOf = (required: readonly RequiredCapability[]): Requirement[] =>
  required.map((need) => ({
    capability: need.capability_id.toLowerCase(),
    min_weight: need.min_weight,
    relax_after_seconds: need.relax_after_seconds,
  }));

/** A reviewer as a candidate of the capabilities matcher: each capability a held grant at its weight. */
export const candidateOf = (reviewer: Reviewer & Partial<LoadedReviewer>): Candidate => ({
  kind: 'person',
  did: reviewer.did,
  available: reviewer.available,
  open_assignments: reviewer.open_assignments ?? 0,
  capacity: reviewer.capacity ?? null,
  grants: Object.entries(reviewer.capabilities).map(([capability, weight]) => ({
    grant_id: `${reviewer.did}#${capability}`,
    capability: capability.toLowerCase(),
    weight,
    expires_at: null,
    revoked: false,
  })),
});

export interface AssignOptions {
  aboveChainLevel?: number;
  exclude?: string[];
  /** How long the routing has waited for a reviewer: requirements relaxed after less than that are dropped. */
  waitedSeconds?: number;
}

/**
 * The reviewers the capabilities matcher (domain/capabilities/matcher.ts, the one matcher) qualifies for
 * `required`, with how: available, with room, not excluded, above the chain level.
 */
function qualified(
  reviewers: readonly LoadedReviewer[],
  required: readonly RequiredCapability[],
  options: AssignOptions,
): Array<{ reviewer: LoadedReviewer; match: Match }> {
  const requirements = requirementsOf(required);
  const satisfiers = satisfierIndex(requirements, new Map());
  const above = options.aboveChainLevel ?? 0;
  const exclude = options.exclude ?? [];
  return reviewers.flatMap((reviewer) => {
    if (!reviewer.available || reviewer.chain_level <= above || !hasRoom(reviewer) || exclude.includes(reviewer.did))
      return [];
    const match = qualify(candidateOf(reviewer), requirements, satisfiers, {
      now: 0,
      waited_seconds: options.waitedSeconds ?? 0,
    });
    return match ? [{ reviewer, match }] : [];
  });
}

/** The matched requirements as routing records them, by the capability id the routing asked for. */
function matchedOf(required: readonly RequiredCapability[], match: Match): CapabilityMatch[] {
  return required.flatMap((need) => {
    const met = match.met.find((m) => m.capability === need.capability_id.toLowerCase());
    return met ? [{ capability_id: need.capability_id, weight: met.weight }] : [];
  });
}

const strength = (match: Match) => match.met.reduce((sum, m) => sum + m.weight, 0);

/**
 * The colleague covering for the reviewer on this routing, if any: the newest cover that is unlimited, or whose
 * capabilities hold every required one (a limited cover takes no routing that names none); never one the
 * routing is being moved away from (excluded).
 */
export function coveringColleague(
  reviewer: Pick<LoadedReviewer, 'did' | 'covers'>,
  required: readonly RequiredCapability[],
  exclude: readonly string[] = [],
): string | undefined {
  const needs = required.map((need) => need.capability_id.toLowerCase());
  const applies = (cover: ReviewerCover) => {
    if (cover.capabilities === null) return true;
    const within = new Set(cover.capabilities.map((capability) => capability.toLowerCase()));
    return needs.length > 0 && needs.every((need) => within.has(need));
  };
  const cover = (reviewer.covers ?? []).find(
    (candidate) =>
      candidate.covering_did !== reviewer.did && !exclude.includes(candidate.covering_did) && applies(candidate),
  );
  return cover?.covering_did;
}

/** Who holds a routing assigned to a human, as its state and records show them: "Bea, covering for Ada" included. */
export function humanAssignee(to: Assignment): {
  type: 'human';
  did: string;
  covering_for?: string;
  capabilities_matched: CapabilityMatch[];
} {
  return {
    type: 'human',
    did: to.did,
    ...(to.covering_for !== undefined ? { covering_for: to.covering_for } : {}),
    capabilities_matched: to.capabilities_matched,
  };
}

/** `Bea` or `Bea, covering for Ada`, for reasoning texts. */
export const describeAssignee = (to: { did: string; covering_for?: string | undefined }): string =>
  to.covering_for !== undefined ? `${to.did}, covering for ${to.covering_for}` : to.did;

/**
 * A qualified reviewer with room, least loaded: the lowest chain level above `aboveChainLevel` that has
 * one (the chain still runs bottom up), and within it the fewest open assignments, then the stronger
 * match (the sum of the matched weights), then the DID, so the choice is stable. `exclude` keeps the
 * current assignee out when a routing is moved on by hand. A cover in force for the one chosen gives the
 * assignment to their colleague, recorded as covering for them (`covering_for`).
 */
export function assignReviewer(
  reviewers: readonly LoadedReviewer[],
  required: RequiredCapability[],
  options: AssignOptions = {},
): Assignment | undefined {
  const candidates = qualified(reviewers, required, options);
  candidates.sort(
    (a, b) =>
      a.reviewer.chain_level - b.reviewer.chain_level ||
      a.reviewer.open_assignments - b.reviewer.open_assignments ||
      strength(b.match) - strength(a.match) ||
      a.reviewer.did.localeCompare(b.reviewer.did),
  );
  const first = candidates[0];
  if (!first) return undefined;
  const relaxed = first.match.relaxed;
  // A cover in force hands the assignment to the colleague; the chain goes on from the reviewer's own level.
  const colleague = coveringColleague(first.reviewer, required, options.exclude);
  return {
    did: colleague ?? first.reviewer.did,
    chain_level: first.reviewer.chain_level,
    ...(colleague !== undefined ? { covering_for: first.reviewer.did } : {}),
    capabilities_matched: matchedOf(required, first.match),
    ...(relaxed.length > 0 ? { capabilities_relaxed: relaxed } : {}),
  };
}

/** Qualified reviewers with room, least loaded first, whatever their chain level: whom an agent may ask for. */
export function suggestReviewers(
  reviewers: readonly LoadedReviewer[],
  required: RequiredCapability[],
  limit = 3,
): string[] {
  return qualified(reviewers, required, {})
    .map(({ reviewer }) => reviewer)
    .sort(
      (a, b) => a.open_assignments - b.open_assignments || a.chain_level - b.chain_level || a.did.localeCompare(b.did),
    )
    .slice(0, limit)
    .map((r) => r.did);
}

/** The weight at which a reviewer meets one need by the capabilities matcher, if it does. */
export function metWeight(reviewer: Reviewer, need: RequiredCapability): number | undefined {
  const requirements = requirementsOf([{ capability_id: need.capability_id, min_weight: need.min_weight }]);
  const match = qualify(candidateOf(reviewer), requirements, satisfierIndex(requirements, new Map()), { now: 0 });
  return match?.met[0]?.weight;
}
