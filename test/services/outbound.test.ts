import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRetryAfter, postJson } from '../../lib/outbound/post';
import { newSigningSecret, sign, signatureHeader, signedPayload, verifySignature } from '../../lib/outbound/signature';
import { createOutboundGuard, isNonPublicAddress } from '../../lib/outbound/url-guard';

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
    ['a changed body', (secret: string) => verifySignature(signatureHeader([secret], now, body), `${body} `, secret, { nowSeconds: now }), 'no_matching_signature'],
    ['another secret', (secret: string) => verifySignature(signatureHeader([newSigningSecret()], now, body), body, secret, { nowSeconds: now }), 'no_matching_signature'],
    ['an old timestamp', (secret: string) => verifySignature(signatureHeader([secret], now, body), body, secret, { nowSeconds: now + 301 }), 'timestamp_out_of_tolerance'],
    ['no header', (secret: string) => verifySignature(undefined, body, secret), 'malformed'],
    ['no v1', (secret: string) => verifySignature(`t=${now}`, body, secret, { nowSeconds: now }), 'malformed'],
  ])('rejects %s', (_name, check, reason) => {
    expect(check(newSigningSecret())).toEqual({ ok: false, reason });
  });
});

describe('outbound destinations', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1'])(
    'treats %s as not public',
    (address) => expect(isNonPublicAddress(address)).toBe(true),
  );

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('treats %s as public', (address) => expect(isNonPublicAddress(address)).toBe(false));

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
    const outcome = await postJson(`${base}/hook`, '{"a":1}', { headers: { 'x-svc-delivery-id': 'd1' }, timeoutMs: 2000, guard: allowLoopback });
    expect(outcome).toMatchObject({ status: 200, responseSnippet: 'ok' });
    expect(received).toEqual([{ path: '/hook', body: '{"a":1}', headers: expect.objectContaining({ 'x-svc-delivery-id': 'd1', 'content-type': 'application/json' }) }]);
  });

  it('reports Retry-After and does not follow redirects', async () => {
    expect(await postJson(`${base}/busy`, '{}', { timeoutMs: 2000, guard: allowLoopback })).toMatchObject({ status: 429, retryAfterSeconds: 7 });
    expect(await postJson(`${base}/moved`, '{}', { timeoutMs: 2000, guard: allowLoopback })).toMatchObject({ status: 302 });
    expect(received.map((r) => r.path)).toEqual(['/busy', '/moved']);
  });

  it('refuses a loopback destination that is not allowlisted, by address or by name, without connecting', async () => {
    const strict = createOutboundGuard({ allowlist: [] });
    const port = (server.address() as AddressInfo).port;
    expect(await postJson(`${base}/hook`, '{}', { timeoutMs: 2000, guard: strict })).toMatchObject({ refused: true });
    expect(await postJson(`http://localhost:${port}/hook`, '{}', { timeoutMs: 2000, guard: strict })).toMatchObject({ refused: true });
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
