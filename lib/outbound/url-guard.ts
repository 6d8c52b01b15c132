import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { describeRefusal, family, nonPublicRange, type NonPublicRange } from './address-ranges';

/**
 * Which private or loopback destinations outbound calls (webhooks, callbacks, agent endpoints) may reach.
 * By default none: a caller-supplied URL must not be a way into our own network (SSRF).
 */
export interface OutboundPolicy {
  /** Host names (exact, case-insensitive), IP addresses, or CIDR ranges that may be private. */
  allowlist: readonly string[];
}

function allowlistBlocks(policy: OutboundPolicy): { hosts: Set<string>; addresses: BlockList } {
  const hosts = new Set<string>();
  const addresses = new BlockList();
  for (const entry of policy.allowlist) {
    const [network, prefix] = entry.split('/');
    if (network && isIP(network)) {
      if (prefix === undefined) addresses.addAddress(network, family(network));
      else addresses.addSubnet(network, Number(prefix), family(network));
    } else {
      hosts.add(entry.toLowerCase());
    }
  }
  return { hosts, addresses };
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Strips the brackets Node keeps around IPv6 literals in URL.hostname. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/** How host names are resolved: node:dns lookup (the system resolver, as connections use it) unless a test stands in. */
export type Resolve = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Judges a destination the way the connection will see it: the host must be allowlisted, or every address
 * it resolves to must be public. Run it when a URL is registered (a clear error for the caller) and again
 * on every connection (guardedLookup), since DNS may answer differently later.
 */
export function createOutboundGuard(policy: OutboundPolicy, options: { resolve?: Resolve } = {}) {
  const allowed = allowlistBlocks(policy);
  const resolve: Resolve =
    options.resolve ?? ((hostname, lookupOptions, callback) => dnsLookup(hostname, lookupOptions, callback));
  /** Why the address may not be reached from this host, or undefined when it may. */
  const refusalOf = (host: string, address: string) =>
    allowed.hosts.has(host)
      ? undefined
      : nonPublicRange(address, (candidate) => allowed.addresses.check(candidate.split('%')[0]!, family(candidate)));

  /** For hosts given as IP literals, which Node connects to without a lookup. */
  function literalCheck(url: URL): UrlCheck | undefined {
    const host = bareHost(url);
    if (!isIP(host)) return undefined;
    const refused = refusalOf(host, host);
    return refused
      ? { ok: false, reason: `points to a private or loopback address (${describeRefusal(host, refused)})` }
      : { ok: true, url };
  }

  const lookup = guardedLookup(resolve, refusalOf);

  return {
    /** Whether the URL may be registered as a destination, resolving its host now. */
    async check(raw: string): Promise<UrlCheck> {
      const parsed = parseDestination(raw);
      if (!parsed.ok) return parsed;
      return literalCheck(parsed.url) ?? resolvedCheck(lookup, parsed);
    },
    parse: parseDestination,
    literalCheck,
    /** A lookup for http.request that refuses non-public answers at connection time (DNS rebinding). */
    lookup,
  };
}

/** Syntax and scheme: absolute http(s), no credentials in the URL. */
function parseDestination(raw: string): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must use https or http' };
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  return { ok: true, url };
}

/** A lookup that resolves every address of the host and refuses the whole answer if one may not be reached. */
function guardedLookup(
  resolve: Resolve,
  refusalOf: (host: string, address: string) => NonPublicRange | undefined,
): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const host = hostname.toLowerCase();
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      for (const { address } of addresses) {
        const refused = refusalOf(host, address);
        if (!refused) continue;
        const refusal = Object.assign(
          new Error(`${hostname} resolves to a private or loopback address (${describeRefusal(address, refused)})`),
          { code: 'EOUTBOUNDREFUSED' },
        );
        callback(refusal, '', 0);
        return;
      }
      if (lookupOptions.all) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** A host name's check: every address it resolves to now must be one the guard lets through. */
function resolvedCheck(lookup: LookupFunction, parsed: { ok: true; url: URL }): Promise<UrlCheck> {
  return new Promise((resolve) => {
    lookup(bareHost(parsed.url), { all: true }, (error) => {
      if (!error) {
        resolve(parsed);
        return;
      }
      const refused = (error as { code?: string }).code === 'EOUTBOUNDREFUSED';
      resolve({
        ok: false,
        reason: refused ? error.message : `cannot be resolved (${(error as { code?: string }).code ?? error.message})`,
      });
    });
  });
}

export type OutboundGuard = ReturnType<typeof createOutboundGuard>;
