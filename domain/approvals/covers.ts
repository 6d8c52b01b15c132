/**
 * Covers at a request's opening: each named approver who has handed their approvals to a colleague for a
 * window holding this instant is replaced by that colleague, and the request records whom they cover for.
 * Pure: the covers in force are read by the caller.
 */

/** A cover in force: `covering` takes the approvals addressed to `covered`. */
export interface CoverInForce {
  covered: string;
  covering: string;
}

/** A cover of approvals that has not ended, its window in epoch milliseconds. */
export interface ApprovalCover extends CoverInForce {
  starts_at: number;
  ends_at: number;
  created_at: number;
}

/** The covers whose window holds `at`: the newest of each person's when they set several. */
export function coversInForceAt(covers: readonly ApprovalCover[], at: number): CoverInForce[] {
  const newest = new Map<string, ApprovalCover>();
  for (const cover of covers) {
    if (cover.starts_at > at || cover.ends_at <= at) continue;
    const seen = newest.get(cover.covered);
    if (!seen || cover.created_at > seen.created_at) newest.set(cover.covered, cover);
  }
  return [...newest.values()].map(({ covered, covering }) => ({ covered, covering }));
}

export interface CoveredSeats {
  approver_passport_id?: string | undefined;
  approvers?: string[] | undefined;
  /** Approver → the person they cover for; absent when no cover applied. */
  covering_for?: Record<string, string> | undefined;
}

/**
 * The seats after covers. A cover is skipped when its colleague is the requester (who never approves their
 * own request) or already holds a seat (the approvers stay distinct persons); then the named person keeps it.
 */
export function seatsAfterCovers(
  request: {
    requester_passport_id: string;
    approver_passport_id?: string | undefined;
    approvers?: string[] | undefined;
  },
  covers: readonly CoverInForce[],
): CoveredSeats {
  const coverOf = new Map(covers.map((cover) => [cover.covered, cover.covering]));
  const named = request.approvers ?? (request.approver_passport_id ? [request.approver_passport_id] : []);
  const taken = new Set(named);
  const covering_for: Record<string, string> = {};
  const seats = named.map((did) => {
    const colleague = coverOf.get(did);
    if (!colleague || colleague === request.requester_passport_id || taken.has(colleague)) return did;
    taken.add(colleague);
    covering_for[colleague] = did;
    return colleague;
  });
  const covered = Object.keys(covering_for).length > 0 ? { covering_for } : {};
  if (request.approvers) return { approvers: seats, ...covered };
  return { approver_passport_id: seats[0], ...covered };
}

export type CoverWindowProblem = { field: string; code: string; message: string };

/** What makes a cover's window or parties wrong: no colleague for oneself, an end after the start and ahead. */
export function coverProblems(
  cover: { covered_did: string; covering_did: string; starts_at: Date; ends_at: Date },
  now: Date,
  longestDays: number,
): CoverWindowProblem[] {
  const problems: CoverWindowProblem[] = [];
  if (cover.covered_did === cover.covering_did)
    problems.push({ field: 'covering_did', code: 'self_cover', message: 'a person cannot cover for themselves' });
  if (cover.ends_at <= cover.starts_at)
    problems.push({ field: 'ends_at', code: 'end_before_start', message: 'ends_at must be after starts_at' });
  else if (cover.ends_at <= now)
    problems.push({ field: 'ends_at', code: 'in_the_past', message: 'ends_at has passed already' });
  else if (cover.ends_at.getTime() - cover.starts_at.getTime() > longestDays * 86_400_000)
    problems.push({ field: 'ends_at', code: 'too_long', message: `a cover lasts at most ${longestDays} days` });
  return problems;
}
