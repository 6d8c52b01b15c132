import { BlockList, isIP } from 'node:net';

interface SpecialRange {
  cidr: string;
  name: string;
  family: 'ipv4' | 'ipv6';
  prefix: number;
  block: BlockList;
}

function range(cidr: string, name: string): SpecialRange {
  const [network, prefixText] = cidr.split('/') as [string, string];
  const family = isIP(network) === 6 ? 'ipv6' : 'ipv4';
  const block = new BlockList();
  // One list per family: a BlockList would match IPv4 addresses against IPv6 rules through their mapped form.
  block.addSubnet(network, Number(prefixText), family);
  return { cidr, name, family, prefix: Number(prefixText), block };
}

/**
 * Every range of the IANA IPv4 and IPv6 Special-Purpose Address Registries, IPv4 multicast, the deprecated
 * IPv6 site-local range, and the IPv6 space outside global unicast (2000::/3). The most specific range that
 * holds an address names it. The IPv6 forms that embed an IPv4 address (EMBEDDING_FORMS) are judged by it.
 */
const SPECIAL_RANGES: readonly SpecialRange[] = [
  range('0.0.0.0/8', 'This network (RFC 791)'),
  range('10.0.0.0/8', 'Private-Use (RFC 1918)'),
  range('100.64.0.0/10', 'Shared Address Space (RFC 6598)'),
  range('127.0.0.0/8', 'Loopback (RFC 1122)'),
  range('169.254.0.0/16', 'Link Local (RFC 3927)'),
  range('172.16.0.0/12', 'Private-Use (RFC 1918)'),
  range('192.0.0.0/24', 'IETF Protocol Assignments (RFC 6890)'),
  range('192.0.2.0/24', 'Documentation, TEST-NET-1 (RFC 5737)'),
  range('192.31.196.0/24', 'AS112-v4 (RFC 7535)'),
  range('192.52.193.0/24', 'AMT (RFC 7450)'),
  range('192.88.99.0/24', 'Deprecated 6to4 Relay Anycast (RFC 7526)'),
  range('192.168.0.0/16', 'Private-Use (RFC 1918)'),
  range('192.175.48.0/24', 'Direct Delegation AS112 Service (RFC 7534)'),
  range('198.18.0.0/15', 'Benchmarking (RFC 2544)'),
  range('198.51.100.0/24', 'Documentation, TEST-NET-2 (RFC 5737)'),
  range('203.0.113.0/24', 'Documentation, TEST-NET-3 (RFC 5737)'),
  range('224.0.0.0/4', 'Multicast (RFC 5771)'),
  range('240.0.0.0/4', 'Reserved (RFC 1112)'),
  range('255.255.255.255/32', 'Limited Broadcast (RFC 919)'),

  range('::/128', 'Unspecified Address (RFC 4291)'),
  range('::1/128', 'Loopback Address (RFC 4291)'),
  range('64:ff9b:1::/48', 'IPv4-IPv6 Translation, local use (RFC 8215)'),
  range('100::/64', 'Discard-Only Address Block (RFC 6666)'),
  range('100:0:0:1::/64', 'Dummy IPv6 Prefix (RFC 9780)'),
  range('2001::/23', 'IETF Protocol Assignments (RFC 2928)'),
  range('2001:1::1/128', 'Port Control Protocol Anycast (RFC 7723)'),
  range('2001:1::2/128', 'TURN Anycast (RFC 8155)'),
  range('2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast (RFC 9665)'),
  range('2001:2::/48', 'Benchmarking (RFC 5180)'),
  range('2001:3::/32', 'AMT (RFC 7450)'),
  range('2001:4:112::/48', 'AS112-v6 (RFC 7535)'),
  range('2001:10::/28', 'Deprecated ORCHID (RFC 4843)'),
  range('2001:20::/28', 'ORCHIDv2 (RFC 7343)'),
  range('2001:30::/28', 'Drone Remote ID Protocol Entity Tags (RFC 9374)'),
  range('2001:db8::/32', 'Documentation (RFC 3849)'),
  range('2620:4f:8000::/48', 'Direct Delegation AS112 Service (RFC 7534)'),
  range('3fff::/20', 'Documentation (RFC 9637)'),
  range('5f00::/16', 'Segment Routing SIDs (RFC 9602)'),
  range('fc00::/7', 'Unique-Local (RFC 4193)'),
  range('fe80::/10', 'Link-Local Unicast (RFC 4291)'),
  range('fec0::/10', 'Deprecated Site-Local (RFC 3879)'),
  range('ff00::/8', 'Multicast (RFC 4291)'),
  range('::/3', 'Outside global unicast (RFC 4291)'),
  range('4000::/2', 'Outside global unicast (RFC 4291)'),
  range('8000::/1', 'Outside global unicast (RFC 4291)'),
];

/** The eight 16-bit groups of an IPv6 address (zone id dropped, a trailing dotted quad read as two groups). */
function ipv6Groups(address: string): number[] {
  const text = address
    .split('%')[0]!
    .replace(
      /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
      (_all, a: string, b: string, c: string, d: string) =>
        `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
    );
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
const zeros = (groups: number[]) => groups.every((group) => group === 0);

/**
 * The IPv6 forms that carry an IPv4 address, and where: traffic to them reaches that IPv4 address (through
 * the host's stack, a NAT64 gateway, a 6to4 relay or a Teredo relay), so it is what the guard judges.
 */
const EMBEDDING_FORMS: ReadonlyArray<{ form: string; embedded: (g: number[]) => string[] | undefined }> = [
  {
    form: 'IPv4-mapped',
    embedded: (g) => (zeros(g.slice(0, 5)) && g[5] === 0xffff ? [ipv4Of(g[6]!, g[7]!)] : undefined),
  },
  // ::/96 less :: and ::1 (RFC 4291 2.5.5.1), which are addresses of their own.
  {
    form: 'IPv4-compatible',
    embedded: (g) => (zeros(g.slice(0, 6)) && (g[6] !== 0 || g[7]! > 1) ? [ipv4Of(g[6]!, g[7]!)] : undefined),
  },
  {
    form: 'NAT64',
    embedded: (g) => (g[0] === 0x64 && g[1] === 0xff9b && zeros(g.slice(2, 6)) ? [ipv4Of(g[6]!, g[7]!)] : undefined),
  },
  { form: '6to4', embedded: (g) => (g[0] === 0x2002 ? [ipv4Of(g[1]!, g[2]!)] : undefined) },
  // Teredo (RFC 4380): the server's address, then the client's, stored inverted.
  {
    form: 'Teredo',
    embedded: (g) =>
      g[0] === 0x2001 && g[1] === 0 ? [ipv4Of(g[2]!, g[3]!), ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff)] : undefined,
  },
];

export function family(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

function embeddedIpv4(address: string): { form: string; addresses: string[] } | undefined {
  if (family(address) !== 'ipv6') return undefined;
  const groups = ipv6Groups(address);
  for (const { form, embedded } of EMBEDDING_FORMS) {
    const addresses = embedded(groups);
    if (addresses) return { form, addresses };
  }
  return undefined;
}

function specialRangeOf(address: string): SpecialRange | undefined {
  const own = family(address);
  const bare = address.split('%')[0]!;
  let found: SpecialRange | undefined;
  for (const candidate of SPECIAL_RANGES) {
    if (candidate.family === own && candidate.prefix > (found?.prefix ?? -1) && candidate.block.check(bare, own))
      found = candidate;
  }
  return found;
}

export interface NonPublicRange {
  cidr: string;
  name: string;
  /** Set when the address is an IPv6 form judged by the IPv4 address it embeds. */
  embedded?: { form: string; ipv4: string };
}

/**
 * The special-purpose range that makes an address non-public, or undefined for a public address. An IPv6
 * address that embeds IPv4 is public only when every IPv4 address it embeds is; `admits` (the allowlist)
 * may let any address, embedded or not, through.
 */
export function nonPublicRange(
  address: string,
  admits: (address: string) => boolean = () => false,
): NonPublicRange | undefined {
  if (admits(address)) return undefined;
  const embedding = embeddedIpv4(address);
  if (!embedding) {
    const special = specialRangeOf(address);
    return special && { cidr: special.cidr, name: special.name };
  }
  for (const ipv4 of embedding.addresses) {
    const special = admits(ipv4) ? undefined : specialRangeOf(ipv4);
    if (special) return { cidr: special.cidr, name: special.name, embedded: { form: embedding.form, ipv4 } };
  }
  return undefined;
}

/** Whether an address is loopback, private, link-local or otherwise not public (IPv4 embedded in IPv6 included). */
export function isNonPublicAddress(address: string): boolean {
  return nonPublicRange(address) !== undefined;
}

export function describeRefusal(address: string, range: NonPublicRange): string {
  const via = range.embedded ? `, ${range.embedded.form} of ${range.embedded.ipv4}` : '';
  return `${address}${via}: ${range.name}, ${range.cidr}`;
}
