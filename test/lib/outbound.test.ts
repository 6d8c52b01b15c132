import { createServer, type IncomingMessage, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { parseRetryAfter, postJson } from '../../lib/outbound/post';
import { newSigningSecret, sign, signatureHeader, signedPayload, verifySignature } from '../../lib/outbound/signature';
import type { LookupAddress } from 'node:dns';
import { isNonPublicAddress, nonPublicRange } from '../../lib/outbound/address-ranges';
import { createOutboundGuard } from '../../lib/outbound/url-guard';

describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', event: 'routing.decided' });
  const now = 1_800_000_000;

  it('signs `<t>.<raw body>` with HMAC-SHA256 and verifies it as a receiver would', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(signedPayload(now, body)).toBe(`${now}.${body}`);
    const header = signatureHeader([secret], now, body);
    expect(header).toBe(`t=${now},v1=${sign(secret, now, body)}`);
    expect(verifySignature(header, body, secret, { nowSeconds: now + 10 })).toEqual({ ok: true, timestamp: now });
  });

  it('carries one v1 per live secret, so either secret verifies during a rotation', () => {
    const [old, fresh] = [newSigningSecret(), newSigningSecret()];
    const header = signatureHeader([fresh, old], now, body);
    expect(header.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(header, body, old, { nowSeconds: now }).ok).toBe(true);
    expect(verifySignature(header, body, fresh, { nowSeconds: now }).ok).toBe(true);
  });

  it.each([
    [
      'a changed body',
      (secret: string) =>
        verifySignature(signatureHeader([secret], now, body), `${body} `, secret, { nowSeconds: now }),
      'no_matching_signature',
    ],
    [
      'another secret',
      (secret: string) =>
        verifySignature(signatureHeader([newSigningSecret()], now, body), body, secret, { nowSeconds: now }),
      'no_matching_signature',
    ],
    [
      'an old timestamp',
      (secret: string) =>
        verifySignature(signatureHeader([secret], now, body), body, secret, { nowSeconds: now + 301 }),
      'timestamp_out_of_tolerance',
    ],
    ['no header', (secret: string) => verifySignature(undefined, body, secret), 'malformed'],
    ['no v1', (secret: string) => verifySignature(`t=${now}`, body, secret, { nowSeconds: now }), 'malformed'],
  ])('rejects %s', (_name, check, reason) => {
    expect(check(newSigningSecret())).toEqual({ ok: false, reason });
  });
});

describe('outbound destinations', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
  ])('treats %s as not public', (address) => expect(isNonPublicAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('treats %s as public', (address) =>
    expect(isNonPublicAddress(address)).toBe(false),
  );

  const strict = createOutboundGuard({ allowlist: [] });

  it.each([
    ['http://127.0.0.1:8080/hook', 'private or loopback'],
    ['http://[::1]/hook', 'private or loopback'],
    ['http://localhost/hook', 'private or loopback'],
    ['http://169.254.169.254/latest/meta-data', 'private or loopback'],
    ['ftp://example.com/hook', 'https or http'],
    ['https://user:secret@example.com/hook', 'credentials'],
    ['not a url', 'absolute URL'],
  ])('refuses %s by default', async (url, reason) => {
    const check = await strict.check(url);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('accepts a public address', async () => {
    expect((await strict.check('https://93.184.216.34/hook')).ok).toBe(true);
  });

  it('lets the allowlist admit private hosts by name, address or range', async () => {
    expect((await createOutboundGuard({ allowlist: ['localhost'] }).check('http://localhost:9/hook')).ok).toBe(true);
    expect((await createOutboundGuard({ allowlist: ['127.0.0.0/8'] }).check('http://127.0.0.2:9/hook')).ok).toBe(true);
    expect((await createOutboundGuard({ allowlist: ['10.0.0.5'] }).check('http://10.0.0.5/hook')).ok).toBe(true);
    expect((await createOutboundGuard({ allowlist: ['10.0.0.5'] }).check('http://10.0.0.6/hook')).ok).toBe(false);
  });
});

const F = 'ffff:ffff:ffff:ffff';
/** What the guard says of an address: the range that refuses it (through the IPv4 an IPv6 form embeds), or public. */
function verdict(address: string): string {
  const range = nonPublicRange(address);
  if (!range) return 'public';
  return range.embedded ? `${range.cidr} via ${range.embedded.form}` : range.cidr;
}

describe('the IANA special-purpose registries, range by range: first, last and the neighbours just outside', () => {
  it.each<[string, string]>([
    // IPv4 Special-Purpose Address Registry, with multicast (RFC 5771).
    ['0.0.0.0', '0.0.0.0/8'],
    ['0.255.255.255', '0.0.0.0/8'],
    ['1.0.0.0', 'public'],
    ['10.0.0.0', '10.0.0.0/8'],
    ['10.255.255.255', '10.0.0.0/8'],
    ['9.255.255.255', 'public'],
    ['11.0.0.0', 'public'],
    ['100.64.0.0', '100.64.0.0/10'],
    ['100.127.255.255', '100.64.0.0/10'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['127.0.0.0', '127.0.0.0/8'],
    ['127.255.255.255', '127.0.0.0/8'],
    ['126.255.255.255', 'public'],
    ['128.0.0.0', 'public'],
    ['169.254.0.0', '169.254.0.0/16'],
    ['169.254.255.255', '169.254.0.0/16'],
    ['169.253.255.255', 'public'],
    ['169.255.0.0', 'public'],
    ['172.16.0.0', '172.16.0.0/12'],
    ['172.31.255.255', '172.16.0.0/12'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.0.0.0', '192.0.0.0/24'],
    ['192.0.0.255', '192.0.0.0/24'],
    ['191.255.255.255', 'public'],
    ['192.0.1.0', 'public'],
    ['192.0.2.0', '192.0.2.0/24'],
    ['192.0.2.255', '192.0.2.0/24'],
    ['192.0.1.255', 'public'],
    ['192.0.3.0', 'public'],
    ['192.31.196.0', '192.31.196.0/24'],
    ['192.31.196.255', '192.31.196.0/24'],
    ['192.31.195.255', 'public'],
    ['192.31.197.0', 'public'],
    ['192.52.193.0', '192.52.193.0/24'],
    ['192.52.193.255', '192.52.193.0/24'],
    ['192.52.192.255', 'public'],
    ['192.52.194.0', 'public'],
    ['192.88.99.0', '192.88.99.0/24'],
    ['192.88.99.255', '192.88.99.0/24'],
    ['192.88.98.255', 'public'],
    ['192.88.100.0', 'public'],
    ['192.168.0.0', '192.168.0.0/16'],
    ['192.168.255.255', '192.168.0.0/16'],
    ['192.167.255.255', 'public'],
    ['192.169.0.0', 'public'],
    ['192.175.48.0', '192.175.48.0/24'],
    ['192.175.48.255', '192.175.48.0/24'],
    ['192.175.47.255', 'public'],
    ['192.175.49.0', 'public'],
    ['198.18.0.0', '198.18.0.0/15'],
    ['198.19.255.255', '198.18.0.0/15'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['198.51.100.0', '198.51.100.0/24'],
    ['198.51.100.255', '198.51.100.0/24'],
    ['198.51.99.255', 'public'],
    ['198.51.101.0', 'public'],
    ['203.0.113.0', '203.0.113.0/24'],
    ['203.0.113.255', '203.0.113.0/24'],
    ['203.0.112.255', 'public'],
    ['203.0.114.0', 'public'],
    ['224.0.0.0', '224.0.0.0/4'],
    ['239.255.255.255', '224.0.0.0/4'],
    ['223.255.255.255', 'public'],
    ['240.0.0.0', '240.0.0.0/4'],
    ['255.255.255.254', '240.0.0.0/4'],
    ['255.255.255.255', '255.255.255.255/32'],

    // IPv6 Special-Purpose Address Registry.
    ['::', '::/128'],
    ['::1', '::1/128'],
    ['64:ff9b:1::', '64:ff9b:1::/48'],
    [`64:ff9b:1:${F}:ffff`, '64:ff9b:1::/48'],
    [`64:ff9b:0:${F}:ffff`, '::/3'],
    ['64:ff9b:2::', '::/3'],
    ['100::', '100::/64'],
    [`100::${F}`, '100::/64'],
    [`ff:${F}:ffff:ffff:ffff`, '::/3'],
    ['100:0:0:1::', '100:0:0:1::/64'],
    [`100:0:0:1:${F}`, '100:0:0:1::/64'],
    ['100:0:0:2::', '::/3'],
    [`2001:1ff:ffff:ffff:${F}`, '2001::/23'],
    ['2001:1::', '2001::/23'],
    [`2000:ffff:ffff:ffff:${F}`, 'public'],
    ['2001:200::', 'public'],
    ['2001:1::1', '2001:1::1/128'],
    ['2001:1::2', '2001:1::2/128'],
    ['2001:1::3', '2001:1::3/128'],
    ['2001:1::4', '2001::/23'],
    ['2001:2::', '2001:2::/48'],
    [`2001:2:0:${F}:ffff`, '2001:2::/48'],
    [`2001:1:${F}:ffff:ffff`, '2001::/23'],
    ['2001:2:1::', '2001::/23'],
    ['2001:3::', '2001:3::/32'],
    [`2001:3:${F}:ffff:ffff`, '2001:3::/32'],
    [`2001:2:${F}:ffff:ffff`, '2001::/23'],
    ['2001:4::', '2001::/23'],
    ['2001:4:112::', '2001:4:112::/48'],
    [`2001:4:112:${F}:ffff`, '2001:4:112::/48'],
    [`2001:4:111:${F}:ffff`, '2001::/23'],
    ['2001:4:113::', '2001::/23'],
    ['2001:10::', '2001:10::/28'],
    [`2001:1f:${F}:ffff:ffff`, '2001:10::/28'],
    [`2001:f:${F}:ffff:ffff`, '2001::/23'],
    ['2001:20::', '2001:20::/28'],
    [`2001:2f:${F}:ffff:ffff`, '2001:20::/28'],
    ['2001:30::', '2001:30::/28'],
    [`2001:3f:${F}:ffff:ffff`, '2001:30::/28'],
    ['2001:40::', '2001::/23'],
    ['2001:db8::', '2001:db8::/32'],
    [`2001:db8:${F}:ffff:ffff`, '2001:db8::/32'],
    [`2001:db7:${F}:ffff:ffff`, 'public'],
    ['2001:db9::', 'public'],
    ['2620:4f:8000::', '2620:4f:8000::/48'],
    [`2620:4f:8000:${F}:ffff`, '2620:4f:8000::/48'],
    [`2620:4f:7fff:${F}:ffff`, 'public'],
    ['2620:4f:8001::', 'public'],
    ['3fff::', '3fff::/20'],
    [`3fff:fff:${F}:ffff:ffff`, '3fff::/20'],
    [`3ffe:ffff:${F}:ffff:ffff`, 'public'],
    ['3fff:1000::', 'public'],
    ['5f00::', '5f00::/16'],
    [`5f00:ffff:${F}:ffff:ffff`, '5f00::/16'],
    [`5eff:ffff:${F}:ffff:ffff`, '4000::/2'],
    ['5f01::', '4000::/2'],
    ['fc00::', 'fc00::/7'],
    [`fdff:ffff:${F}:ffff:ffff`, 'fc00::/7'],
    [`fbff:ffff:${F}:ffff:ffff`, '8000::/1'],
    ['fe00::', '8000::/1'],
    ['fe80::', 'fe80::/10'],
    [`febf:ffff:${F}:ffff:ffff`, 'fe80::/10'],
    [`fe7f:ffff:${F}:ffff:ffff`, '8000::/1'],
    ['fec0::', 'fec0::/10'],
    [`feff:ffff:${F}:ffff:ffff`, 'fec0::/10'],
    ['ff00::', 'ff00::/8'],
    [`ffff:ffff:${F}:ffff:ffff`, 'ff00::/8'],
    // Outside global unicast (2000::/3) the IPv6 address space is reserved or local (IANA IPv6 Address Space registry).
    [`1fff:ffff:${F}:ffff:ffff`, '::/3'],
    ['2000::', 'public'],
    ['4000::', '4000::/2'],
    [`7fff:ffff:${F}:ffff:ffff`, '4000::/2'],
    ['8000::', '8000::/1'],
    ['2606:4700:4700::1111', 'public'],

    // Forms that embed an IPv4 address are judged by it.
    ['::ffff:0.0.0.0', '0.0.0.0/8 via IPv4-mapped'],
    ['::ffff:255.255.255.255', '255.255.255.255/32 via IPv4-mapped'],
    ['::ffff:8.8.8.8', 'public'],
    ['::fffe:ffff:ffff', '::/3'],
    ['::1:0:0:0', '::/3'],
    ['::0.0.0.2', '0.0.0.0/8 via IPv4-compatible'],
    ['::255.255.255.255', '255.255.255.255/32 via IPv4-compatible'],
    ['::8.8.8.8', 'public'],
    ['::1:0:0', '::/3'],
    ['64:ff9b::', '0.0.0.0/8 via NAT64'],
    ['64:ff9b::ffff:ffff', '255.255.255.255/32 via NAT64'],
    ['64:ff9b::808:808', 'public'],
    [`64:ff9a:${F}:ffff:ffff`, '::/3'],
    ['64:ff9b::1:0:0', '::/3'],
    ['2002::', '0.0.0.0/8 via 6to4'],
    [`2002:ffff:${F}:ffff:ffff`, '255.255.255.255/32 via 6to4'],
    ['2002:808:808::1', 'public'],
    ['2002:c0a8:101::1', '192.168.0.0/16 via 6to4'],
    [`2001:ffff:${F}:ffff:ffff`, 'public'],
    ['2003::', 'public'],
    ['2001::', '0.0.0.0/8 via Teredo'],
    [`2001:0:ffff:ffff:${F}`, '255.255.255.255/32 via Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.0/24 via Teredo'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    ['2001:0:4136:e378::80ff:fffe', '127.0.0.0/8 via Teredo'],
  ])('%s: %s', (address, expected) => {
    expect(isIP(address)).not.toBe(0);
    expect(verdict(address)).toBe(expected);
    expect(isNonPublicAddress(address)).toBe(expected !== 'public');
  });
});

describe('hostile spellings of a non-public destination', () => {
  const strict = createOutboundGuard({ allowlist: [] });

  it.each([
    'http://[::ffff:7f00:1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[0:0:0:0:0:ffff:7f00:1]/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::7f00:1]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[64:ff9b:1::a00:1]/hook',
    'http://[2001:0:4136:e378::80ff:fffe]/hook',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data',
    'http://[fec0::1]/hook',
    'http://[ff02::1]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://0x7f000001/hook',
    'http://0177.0.0.1/hook',
    'http://127.1/hook',
    'http://0/hook',
    'http://255.255.255.255/hook',
    'http://224.0.0.1/hook',
  ])('refuses %s', async (url) => {
    const check = await strict.check(url);
    expect(check).toEqual({ ok: false, reason: expect.stringContaining('private or loopback') });
  });

  it.each([
    'https://[64:ff9b::5db8:d822]/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:5db8:d822]/hook',
  ])('lets %s through (public, or embedding a public IPv4)', async (url) => {
    expect((await strict.check(url)).ok).toBe(true);
  });

  it('judges an embedded IPv4 address against the allowlist as it judges the address itself', async () => {
    const loopback = createOutboundGuard({ allowlist: ['127.0.0.0/8'] });
    expect((await loopback.check('http://[::ffff:7f00:1]:9/hook')).ok).toBe(true);
    expect((await loopback.check('http://[64:ff9b::7f00:2]:9/hook')).ok).toBe(true);
    expect((await loopback.check('http://[64:ff9b::a00:1]:9/hook')).ok).toBe(false);
    expect((await createOutboundGuard({ allowlist: ['10.0.0.5'] }).check('http://[::ffff:a00:6]/hook')).ok).toBe(false);
  });
});

describe('host names are judged by the addresses they resolve to', () => {
  /** A resolver that answers every name with the given addresses, as a hostile DNS server would. */
  const answering =
    (addresses: string[]) =>
    (
      _hostname: string,
      _options: object,
      callback: (error: NodeJS.ErrnoException | null, answer: LookupAddress[]) => void,
    ) =>
      setImmediate(() =>
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        ),
      );

  it.each([
    [['::ffff:7f00:1'], '::ffff:7f00:1'],
    [['64:ff9b::a9fe:a9fe'], '64:ff9b::a9fe:a9fe'],
    [['2002:c0a8:1::1'], '2002:c0a8:1::1'],
    [['93.184.216.34', 'fd12::1'], 'fd12::1'],
  ])('refuses a name that resolves to %j', async (addresses, refused) => {
    const guard = createOutboundGuard({ allowlist: [] }, { resolve: answering(addresses) });
    expect(await guard.check('https://rebound.example/hook')).toEqual({
      ok: false,
      reason: expect.stringContaining(`resolves to a private or loopback address (${refused}`),
    });
  });

  it('accepts a name whose every address is public', async () => {
    const guard = createOutboundGuard(
      { allowlist: [] },
      { resolve: answering(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '64:ff9b::5db8:d822']) },
    );
    expect((await guard.check('https://example.com/hook')).ok).toBe(true);
  });

  it('resolves with the system resolver by default: localhost is refused', async () => {
    expect(await createOutboundGuard({ allowlist: [] }).check('http://localhost/hook')).toEqual({
      ok: false,
      reason: expect.stringContaining('localhost resolves to a private or loopback address'),
    });
  });
});

describe('postJson', () => {
  let server: Server;
  let base: string;
  const received: Array<{ path: string; body: string; headers: IncomingMessage['headers'] }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        if (req.url === '/busy') res.writeHead(429, { 'retry-after': '7' }).end('slow down');
        else if (req.url === '/moved') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
        else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2000);
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    received.length = 0;
  });

  const allowLoopback = createOutboundGuard({ allowlist: ['127.0.0.0/8', 'localhost'] });

  it('sends the bytes it is given with the headers, and reports the answer', async () => {
    const outcome = await postJson(`${base}/hook`, '{"a":1}', {
      headers: { 'x-svc-delivery-id': 'd1' },
      timeoutMs: 2000,
      guard: allowLoopback,
    });
    expect(outcome).toMatchObject({ status: 200, responseSnippet: 'ok' });
    expect(received).toEqual([
      {
        path: '/hook',
        body: '{"a":1}',
        headers: expect.objectContaining({ 'x-svc-delivery-id': 'd1', 'content-type': 'application/json' }),
      },
    ]);
  });

  it('reports Retry-After and does not follow redirects', async () => {
    expect(await postJson(`${base}/busy`, '{}', { timeoutMs: 2000, guard: allowLoopback })).toMatchObject({
      status: 429,
      retryAfterSeconds: 7,
    });
    expect(await postJson(`${base}/moved`, '{}', { timeoutMs: 2000, guard: allowLoopback })).toMatchObject({
      status: 302,
    });
    expect(received.map((r) => r.path)).toEqual(['/busy', '/moved']);
  });

  it('refuses a loopback destination that is not allowlisted, by address or by name, without connecting', async () => {
    const strict = createOutboundGuard({ allowlist: [] });
    const port = (server.address() as AddressInfo).port;
    expect(await postJson(`${base}/hook`, '{}', { timeoutMs: 2000, guard: strict })).toMatchObject({ refused: true });
    expect(await postJson(`http://localhost:${port}/hook`, '{}', { timeoutMs: 2000, guard: strict })).toMatchObject({
      refused: true,
    });
    expect(received).toEqual([]);
  });

  it('refuses at connection time a name that now resolves to loopback in an IPv6 spelling, without connecting', async () => {
    const rebinding = createOutboundGuard(
      { allowlist: [] },
      {
        resolve: (_hostname, _options, callback) =>
          setImmediate(() => callback(null, [{ address: '::ffff:7f00:1', family: 6 }])),
      },
    );
    const port = (server.address() as AddressInfo).port;
    const outcome = await postJson(`http://rebound.example:${port}/hook`, '{}', { timeoutMs: 2000, guard: rebinding });
    expect(outcome).toMatchObject({ refused: true, error: expect.stringContaining('IPv4-mapped of 127.0.0.1') });
    expect(received).toEqual([]);
  });

  it('gives up after the timeout', async () => {
    const outcome = await postJson(`${base}/slow`, '{}', { timeoutMs: 200, guard: allowLoopback });
    expect(outcome.status).toBeUndefined();
    expect(outcome.error).toMatch(/no answer within 200 ms/);
  });

  it.each([
    ['7', 7],
    ['Wed, 21 Oct 2015 07:28:10 GMT', 30],
    ['soon', undefined],
    [undefined, undefined],
  ])('reads Retry-After %s', (value, seconds) => {
    expect(parseRetryAfter(value, Date.parse('Wed, 21 Oct 2015 07:27:40 GMT'))).toBe(seconds);
  });
});
