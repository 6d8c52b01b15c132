/**
 * The Passports part of `npm run bench -- identity`: how fast the API creates Passports. An agent
 * Passport (POST /v1/passports: a key pair made and sealed, the Passport, its key and its provenance
 * record in one transaction) against the floor of a Passport read on the same stack (GET
 * /v1/passports/{id}), at concurrency 1 and 8; and a person's device registration (the challenge, then
 * the signed proof: two requests).
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { runClosedLoop, summarize, type LoadFigures, type Send } from './load';
import { fixed } from './report';
import { say } from './stack';

const REQUESTS = 400;
const WARM_UP = 50;
const CONCURRENCIES = [1, 8];

export interface PassportFigures {
  create: Record<string, LoadFigures>;
  read: Record<string, LoadFigures>;
  deviceRegistration: LoadFigures;
  /** Creation's p50 over the read's, per concurrency: what making a key and its provenance costs beyond a request. */
  createOverReadP50: Record<string, number>;
}

async function expectStatus(response: Response, status: number): Promise<{ ok: true } | { ok: false; error: string }> {
  const text = await response.text();
  return response.status === status ? { ok: true } : { ok: false, error: `${response.status} ${text.slice(0, 200)}` };
}

export async function measurePassports(options: { baseUrl: string; token: string }): Promise<PassportFigures> {
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
  const create: Send = async (index) =>
    expectStatus(
      await fetch(`${options.baseUrl}/v1/passports`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'agent', name: `bench agent ${index}` }),
      }),
      201,
    );

  const seeded = await fetch(`${options.baseUrl}/v1/passports`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ type: 'agent', name: 'bench read target' }),
  });
  const { data } = (await seeded.json()) as { data: { passportId: string } };
  const read: Send = async () =>
    expectStatus(await fetch(`${options.baseUrl}/v1/passports/${data.passportId}`, { headers }), 200);

  const registerDevice: Send = async () => {
    const invited = await fetch(`${options.baseUrl}/v1/passports/device-challenges`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench person' }),
    });
    if (invited.status !== 201) return expectStatus(invited, 201);
    const { challenge } = (await invited.json()) as { challenge: string };
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const deviceId = `bench-${randomUUID()}`;
    const proof = await new SignJWT({ challenge, deviceId })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'device-proof+jwt' })
      .sign(privateKey);
    const jwk = await exportJWK(publicKey);
    const body = JSON.stringify({ proof, deviceId, publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } });
    return expectStatus(
      await fetch(`${options.baseUrl}/v1/passports/devices`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
      201,
    );
  };

  say(`Warm-up: ${WARM_UP} creations and reads…`);
  await runClosedLoop({ count: WARM_UP, concurrency: 4, send: create });
  await runClosedLoop({ count: WARM_UP, concurrency: 4, send: read });

  const figures: PassportFigures = { create: {}, read: {}, deviceRegistration: summarize([]), createOverReadP50: {} };
  for (const concurrency of CONCURRENCIES) {
    say(
      `Measuring at concurrency ${concurrency}: ${REQUESTS} POST /v1/passports, then ${REQUESTS} GET /v1/passports/{id}…`,
    );
    figures.create[concurrency] = summarize([
      await runClosedLoop({ count: REQUESTS, concurrency, send: create, firstIndex: WARM_UP }),
    ]);
    figures.read[concurrency] = summarize([await runClosedLoop({ count: REQUESTS, concurrency, send: read })]);
    figures.createOverReadP50[concurrency] = figures.create[concurrency].p50Ms / figures.read[concurrency].p50Ms;
  }
  say(`Measuring ${REQUESTS / 2} device registrations (challenge + proof) at concurrency 8…`);
  figures.deviceRegistration = summarize([
    await runClosedLoop({ count: REQUESTS / 2, concurrency: 8, send: registerDevice }),
  ]);

  say('');
  say('Passports                              requests  errors   p50 ms   p99 ms    per s   p50 / read');
  const row = (label: string, f: LoadFigures, ratio?: number) =>
    say(
      `  ${label.padEnd(36)} ${String(f.requests).padStart(8)} ${String(f.errors).padStart(7)} ${fixed(f.p50Ms).padStart(8)} ${fixed(f.p99Ms).padStart(8)} ${fixed(f.throughputPerSecond).padStart(8)}   ${ratio === undefined ? '' : fixed(ratio, 2)}`,
    );
  for (const concurrency of CONCURRENCIES) {
    row(
      `create agent Passport, concurrency ${concurrency}`,
      figures.create[concurrency]!,
      figures.createOverReadP50[concurrency],
    );
    row(`read Passport, concurrency ${concurrency}`, figures.read[concurrency]!);
  }
  row('device registration, concurrency 8', figures.deviceRegistration);
  for (const f of [...Object.values(figures.create), ...Object.values(figures.read), figures.deviceRegistration])
    for (const sample of f.errorSamples) say(`    error: ${sample}`);
  return figures;
}
