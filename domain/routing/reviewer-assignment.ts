import type { RequiredCapability } from './decision';

export interface Reviewer {
  did: string;
  display_name: string;
  /** capability_id → weight in [0, 1] */
  capabilities: Record<string, number>;
  /** 1 is the first line; higher levels are who a routing escalates to. */
  chain_level: number;
  available: boolean;
}

export interface CapabilityMatch {
  capability_id: string;
  weight: number;
}

export function matchCapabilities(reviewer: Reviewer, required: RequiredCapability[]): CapabilityMatch[] | undefined {
  const matched: CapabilityMatch[] = [];
  for (const need of required) {
    const weight = reviewer.capabilities[need.capability_id];
    if (weight === undefined || weight < need.min_weight) return undefined;
    matched.push({ capability_id: need.capability_id, weight });
  }
  return matched;
}

export interface Assignment {
  did: string;
  chain_level: number;
  capabilities_matched: CapabilityMatch[];
}

/** A reviewer with their current load: open assignments, and the most they take (null: no limit). */
export interface LoadedReviewer extends Reviewer {
  open_assignments: number;
  capacity: number | null;
}

const hasRoom = (reviewer: LoadedReviewer) =>
  reviewer.capacity === null || reviewer.open_assignments < reviewer.capacity;

/**
 * A qualified reviewer with room, least loaded: the lowest chain level above `aboveChainLevel` that has
 * one (the chain still runs bottom up), and within it the fewest open assignments, then the stronger
 * match (the sum of the matched weights), then the DID, so the choice is stable. `exclude` keeps the
 * current assignee out when a routing is moved on by hand.
 */
export function assignReviewer(
  reviewers: readonly LoadedReviewer[],
  required: RequiredCapability[],
  options: { aboveChainLevel?: number; exclude?: string[] } = {},
): Assignment | undefined {
  const above = options.aboveChainLevel ?? 0;
  const candidates = reviewers
    .filter((r) => r.available && r.chain_level > above && hasRoom(r) && !(options.exclude ?? []).includes(r.did))
    .map((r) => ({ reviewer: r, matched: matchCapabilities(r, required) }))
    .filter((c): c is { reviewer: LoadedReviewer; matched: CapabilityMatch[] } => c.matched !== undefined);
  const strength = (matched: CapabilityMatch[]) => matched.reduce((sum, m) => sum + m.weight, 0);
  candidates.sort(
    (a, b) =>
      a.reviewer.chain_level - b.reviewer.chain_level ||
      a.reviewer.open_assignments - b.reviewer.open_assignments ||
      strength(b.matched) - strength(a.matched) ||
      a.reviewer.did.localeCompare(b.reviewer.did),
  );
  const first = candidates[0];
  return (
    first && { did: first.reviewer.did, chain_level: first.reviewer.chain_level, capabilities_matched: first.matched }
  );
}

/** Qualified reviewers with room, least loaded first, whatever their chain level: whom an agent may ask for. */
export function suggestReviewers(
  reviewers: readonly LoadedReviewer[],
  required: RequiredCapability[],
  limit = 3,
): string[] {
  return reviewers
    .filter((r) => r.available && hasRoom(r) && matchCapabilities(r, required) !== undefined)
    .sort(
      (a, b) => a.open_assignments - b.open_assignments || a.chain_level - b.chain_level || a.did.localeCompare(b.did),
    )
    .slice(0, limit)
    .map((r) => r.did);
}
