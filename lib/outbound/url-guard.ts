import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Which private or loopback destinations outbound calls (webhooks, callbacks, agent endpoints) may reach.
 * By default none: a caller-supplied URL must not be a way into our own network (SSRF).
 */
export interface OutboundPolicy {
  /** Host names (exact, case-insensitive), IP addresses, or CIDR ranges that may be private. */
  allowlist: readonly string[];
}

/** Addresses that are not on the public internet (IANA special-purpose registries). */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

/** Whether an address is loopback, private, link-local or otherwise not public (IPv4-mapped IPv6 included). */
export function isNonPublicAddress(address: string): boolean {
  return NON_PUBLIC.check(address, family(address));
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

/**
 * Judges a destination the way the connection will see it: the host must be allowlisted, or every address
 * it resolves to must be public. Run it when a URL is registered (a clear error for the caller) and again
 * on every connection (guardedLookup), since DNS may answer differently later.
 */
export function createOutboundGuard(policy: OutboundPolicy) {
  const allowed = allowlistBlocks(policy);
  const addressAllowed = (host: string, address: string) => allowed.hosts.has(host) || allowed.addresses.check(address, family(address)) || !isNonPublicAddress(address);

  /** Syntax and scheme: absolute http(s), no credentials in the URL. */
  function parse(raw: string): UrlCheck {
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

  /** For hosts given as IP literals, which Node connects to without a lookup. */
  function literalCheck(url: URL): UrlCheck | undefined {
    const host = bareHost(url);
    if (!isIP(host)) return undefined;
    return addressAllowed(host, host) ? { ok: true, url } : { ok: false, reason: `points to a private or loopback address (${host})` };
  }

  const lookup: LookupFunction = (hostname, options, callback) => {
    const host = hostname.toLowerCase();
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !addressAllowed(host, entry.address));
      if (refused) {
        const refusal = Object.assign(new Error(`${hostname} resolves to a private or loopback address (${refused.address})`), { code: 'EOUTBOUNDREFUSED' });
        return callback(refusal, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };

  return {
    /** Whether the URL may be registered as a destination, resolving its host now. */
    async check(raw: string): Promise<UrlCheck> {
      const parsed = parse(raw);
      if (!parsed.ok) return parsed;
      const literal = literalCheck(parsed.url);
      if (literal) return literal;
      return new Promise((resolve) => {
        lookup(bareHost(parsed.url), { all: true }, (error) => {
          if (!error) return resolve(parsed);
          const refused = (error as { code?: string }).code === 'EOUTBOUNDREFUSED';
          resolve({ ok: false, reason: refused ? error.message : `cannot be resolved (${(error as { code?: string }).code ?? error.message})` });
        });
      });
    },
    parse,
    literalCheck,
    /** A lookup for http.request that refuses non-public answers at connection time (DNS rebinding). */
    lookup,
  };
}

export type OutboundGuard = ReturnType<typeof createOutboundGuard>;
