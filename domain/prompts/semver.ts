/** Semantic versions (semver.org 2.0.0) as prompt versions use them: parsing, precedence and a sortable key. */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
  build: string[];
}

const NUMERIC = /^(?:0|[1-9]\d*)$/;
const PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;
/** Numbers beyond this lose precision in JavaScript and in the sort key's fixed width. */
const MAX_PART = Number.MAX_SAFE_INTEGER;
const WIDTH = String(MAX_PART).length;

export function parseSemver(text: string): SemVer | undefined {
  if (text.length > 128) return undefined;
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const [major, minor, patch] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  const prerelease = match[4]?.split('.') ?? [];
  if (
    [major, minor, patch].some((part) => part > MAX_PART) ||
    prerelease.some((id) => NUMERIC.test(id) && Number(id) > MAX_PART)
  )
    return undefined;
  return { major, minor, patch, prerelease, build: match[5]?.split('.') ?? [] };
}

export function isSemver(text: string): boolean {
  return parseSemver(text) !== undefined;
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) return Math.sign(Number(a) - Number(b));
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Precedence: major, minor, patch, then a prerelease before its release; build metadata does not count. */
export function compareSemver(a: SemVer, b: SemVer): number {
  for (const part of ['major', 'minor', 'patch'] as const) if (a[part] !== b[part]) return Math.sign(a[part] - b[part]);
  if (a.prerelease.length === 0 || b.prerelease.length === 0)
    return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let index = 0; index < Math.min(a.prerelease.length, b.prerelease.length); index += 1) {
    const order = compareIdentifiers(a.prerelease[index]!, b.prerelease[index]!);
    if (order !== 0) return order;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

const pad = (value: number | string) => String(value).padStart(WIDTH, '0');

/**
 * A text whose byte order (collation "C") is semver precedence, so the database orders and pages versions:
 * fixed-width numbers; a prerelease's identifiers joined by a space (below every identifier character, so a
 * shorter list sorts first), numeric ones (0…) before alphanumeric ones (1…); a release ends in ~, after any
 * prerelease. Versions that differ only in build metadata have the same key.
 */
export function semverSortKey(version: SemVer): string {
  const core = `${pad(version.major)}.${pad(version.minor)}.${pad(version.patch)}`;
  if (version.prerelease.length === 0) return `${core}~`;
  return `${core}-${version.prerelease.map((id) => (NUMERIC.test(id) ? `0${pad(id)}` : `1${id}`)).join(' ')}`;
}
