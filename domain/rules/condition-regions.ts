import type { Condition, Scalar } from './conditions';
import { riskRank, type RiskLevel } from '../routing/risk';

/**
 * The set of routings a list of conditions matches, as one constraint per field, so that two rules can be
 * compared without data: do they ever match the same routing (overlap), and does one match only routings
 * the other matches too (subset)? Each field's constraint is a set of values: an allow-list, values
 * excluded, and a numeric interval. Fields every routing carries (task type, domain, risk level,
 * confidence) start as their whole range; any other field (amount, context) may be missing, and a
 * condition on it matches only routings that carry it.
 */
interface Interval {
  lo: number;
  loOpen: boolean;
  hi: number;
  hiOpen: boolean;
}

interface ValueSet {
  /** The only values allowed; null: any value (within the interval, unless excluded). */
  allowed: Scalar[] | null;
  excluded: Scalar[];
  /** When set, only numbers inside it. */
  interval: Interval | null;
}

export type Region = Map<string, ValueSet>;

const ALL_RISK_RANKS = [0, 1, 2, 3];
const ANY: ValueSet = { allowed: null, excluded: [], interval: null };

/** The range of a field every routing carries; undefined for fields a routing may lack. */
function universe(field: string): ValueSet | undefined {
  if (field === 'risk_level') return { allowed: ALL_RISK_RANKS, excluded: [], interval: null };
  if (field === 'ai_confidence')
    return { allowed: null, excluded: [], interval: { lo: 0, loOpen: false, hi: 1, hiOpen: false } };
  if (field === 'task_type' || field === 'domain') return ANY;
  return undefined;
}

function inInterval(interval: Interval, value: number): boolean {
  return (
    (interval.loOpen ? value > interval.lo : value >= interval.lo) &&
    (interval.hiOpen ? value < interval.hi : value <= interval.hi)
  );
}

function intervalEmpty(interval: Interval): boolean {
  return interval.lo > interval.hi || (interval.lo === interval.hi && (interval.loOpen || interval.hiOpen));
}

function intersectIntervals(a: Interval | null, b: Interval | null): Interval | null {
  if (!a) return b;
  if (!b) return a;
  const lo = a.lo > b.lo ? a : a.lo < b.lo ? b : { lo: a.lo, loOpen: a.loOpen || b.loOpen };
  const hi = a.hi < b.hi ? a : a.hi > b.hi ? b : { hi: a.hi, hiOpen: a.hiOpen || b.hiOpen };
  return { lo: lo.lo, loOpen: lo.loOpen, hi: hi.hi, hiOpen: hi.hiOpen };
}

function contains(set: ValueSet, value: Scalar): boolean {
  if (set.allowed && !set.allowed.includes(value)) return false;
  if (set.excluded.includes(value)) return false;
  return !set.interval || (typeof value === 'number' && inInterval(set.interval, value));
}

/** An allow-list absorbs the other constraints; a one-point interval becomes an allow-list. */
function normalize(set: ValueSet): ValueSet {
  if (set.allowed)
    return { allowed: [...new Set(set.allowed)].filter((value) => contains(set, value)), excluded: [], interval: null };
  if (set.interval && !intervalEmpty(set.interval) && set.interval.lo === set.interval.hi) {
    return normalize({ ...set, allowed: [set.interval.lo] });
  }
  return set;
}

function intersect(a: ValueSet, b: ValueSet): ValueSet {
  return normalize({
    allowed:
      a.allowed && b.allowed ? a.allowed.filter((value) => b.allowed!.includes(value)) : (a.allowed ?? b.allowed),
    excluded: [...a.excluded, ...b.excluded],
    interval: intersectIntervals(a.interval, b.interval),
  });
}

function isEmpty(set: ValueSet): boolean {
  if (set.allowed) return set.allowed.length === 0;
  return set.interval !== null && intervalEmpty(set.interval);
}

/** Every value of `a` is in `b`. */
function isSubset(a: ValueSet, b: ValueSet): boolean {
  if (isEmpty(a)) return true;
  if (a.allowed) return a.allowed.every((value) => contains(b, value));
  // `a` is infinite from here on.
  if (b.allowed) return false;
  if (b.excluded.some((value) => contains(a, value))) return false;
  if (!b.interval) return true;
  if (!a.interval) return false;
  const lowerInside =
    a.interval.lo > b.interval.lo || (a.interval.lo === b.interval.lo && (a.interval.loOpen || !b.interval.loOpen));
  const upperInside =
    a.interval.hi < b.interval.hi || (a.interval.hi === b.interval.hi && (a.interval.hiOpen || !b.interval.hiOpen));
  return lowerInside && upperInside;
}

function normalizedValue(field: string, value: Scalar): Scalar {
  return field === 'risk_level' && typeof value === 'string' ? riskRank(value as RiskLevel) : value;
}

function conditionSet(condition: Condition): ValueSet {
  const field = condition.condition_type;
  const values = (Array.isArray(condition.value) ? condition.value : [condition.value]).map((value) =>
    normalizedValue(field, value),
  );
  const [first] = values;
  switch (condition.operator) {
    case '==':
    case 'in':
      return { allowed: values, excluded: [], interval: null };
    case '!=':
    case 'not_in':
      return { allowed: null, excluded: values, interval: null };
    default: {
      // Ordering operators only hold for numbers (conditionProblem rejects anything else).
      const bound = first as number;
      if (condition.operator === '>')
        return { allowed: null, excluded: [], interval: { lo: bound, loOpen: true, hi: Infinity, hiOpen: false } };
      if (condition.operator === '>=')
        return { allowed: null, excluded: [], interval: { lo: bound, loOpen: false, hi: Infinity, hiOpen: false } };
      if (condition.operator === '<')
        return { allowed: null, excluded: [], interval: { lo: -Infinity, loOpen: false, hi: bound, hiOpen: true } };
      return { allowed: null, excluded: [], interval: { lo: -Infinity, loOpen: false, hi: bound, hiOpen: false } };
    }
  }
}

export function regionOf(conditions: readonly Condition[]): Region {
  const region: Region = new Map();
  for (const condition of conditions) {
    const field = condition.condition_type;
    const current = region.get(field) ?? universe(field) ?? ANY;
    region.set(field, intersect(current, conditionSet(condition)));
  }
  return region;
}

/** No routing can match: some field's constraint is empty. */
export function isUnsatisfiable(region: Region): boolean {
  return [...region.values()].some(isEmpty);
}

/** Some routing matches both. */
export function overlaps(a: Region, b: Region): boolean {
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const left = a.get(field);
    const right = b.get(field);
    if (left && right && isEmpty(intersect(left, right))) return false;
    if ((left && isEmpty(left)) || (right && isEmpty(right))) return false;
  }
  return true;
}

/** Every routing `inner` matches, `outer` matches too. */
export function isWithin(inner: Region, outer: Region): boolean {
  if (isUnsatisfiable(inner)) return true;
  for (const [field, constraint] of outer) {
    const own = inner.get(field) ?? universe(field);
    // `inner` does not constrain a field that may be missing, so it matches routings without it; `outer` does not.
    if (!own) return false;
    if (!isSubset(own, constraint)) return false;
  }
  return true;
}

/** The values a field is limited to (an allow-list), or undefined when the region does not list them. */
export function allowedValues(region: Region, field: string): Scalar[] | undefined {
  return region.get(field)?.allowed ?? undefined;
}
