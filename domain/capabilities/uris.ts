/**
 * Capability URIs: capability://<org>/<name>, the organization segment optional (a bare name is also taken).
 * A definition is keyed by its name within its organization; the org segment, when written, must be the
 * organization's slug or id (as agent URIs' is), so another organization's capability is never named.
 */
const NAME = '[a-z0-9][a-z0-9._-]{0,62}';
const URI = new RegExp(`^(?:capability://(?:(${NAME})/)?)?(${NAME})$`);

export const CAPABILITY_URI_PATTERN = URI.source;

export interface CapabilityUri {
  /** The organization segment as written; undefined when the URI has none. */
  org?: string;
  name: string;
}

export function parseCapabilityUri(value: string): CapabilityUri | undefined {
  const match = URI.exec(value);
  if (!match) return undefined;
  return match[1] ? { org: match[1], name: match[2]! } : { name: match[2]! };
}

/** The capability's name when the URI is well formed and names no other organization than one of `ownSegments`. */
export function ownCapabilityName(value: string, ownSegments: readonly string[]): string | undefined {
  const parsed = parseCapabilityUri(value);
  if (!parsed) return undefined;
  if (parsed.org !== undefined && !ownSegments.includes(parsed.org)) return undefined;
  return parsed.name;
}

export function capabilityUri(orgSegment: string, name: string): string {
  return `capability://${orgSegment}/${name}`;
}
