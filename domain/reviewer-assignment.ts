import type { RequiredCapability } from './routing-decision';

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

/**
 * The first available reviewer, lowest chain level first, above `aboveChainLevel`, who holds every
 * required capability at its minimum weight. Ties go to the DID's order so that the choice is stable.
 */
export function selectReviewer(
  reviewers: readonly Reviewer[],
  required: RequiredCapability[],
  aboveChainLevel = 0,
): Assignment | undefined {
  const candidates = reviewers
    .filter((r) => r.available && r.chain_level > aboveChainLevel)
    .map((r) => ({ reviewer: r, matched: matchCapabilities(r, required) }))
    .filter((c): c is { reviewer: Reviewer; matched: CapabilityMatch[] } => c.matched !== undefined)
    .sort((a, b) => a.reviewer.chain_level - b.reviewer.chain_level || a.reviewer.did.localeCompare(b.reviewer.did));
  const first = candidates[0];
  return first && { did: first.reviewer.did, chain_level: first.reviewer.chain_level, capabilities_matched: first.matched };
}
