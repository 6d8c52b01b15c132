/**
 * `npm run bench -- recovery`: what one guardian recovery costs against Temporal's plain-start floor measured
 * in the same run. One recovery is the whole recoverPassportWorkflow as people drive it over HTTP: the request
 * (POST …/recovery/requests), two guardians' approvals (a strict majority of three), the time lock (one second
 * here, RECOVERY_TIME_LOCK_SECONDS), the confirmation code caught by a real SMTP server in this process, and
 * the execution that replaces the Passport's key. The Passports and their guardians are made beforehand and not
 * billed. Printed: latency (the time lock included), throughput, and CPU milliseconds per operation of each
 * process (API, worker, Temporal, Postgres, this load generator with its SMTP server), beside the same for
 * a plain start of a workflow that ends at once. Writes bench-results/recovery.json.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { startMailCatcher, type MailCatcher } from '../../lib/mail/catcher';
import { BENCH_FLOOR_WORKFLOW, type BenchFloorWorkflow } from './floor/contract';
import { runClosedLoop, summarize, type LoadFigures, type Send } from './load';
import { serviceBackendPids } from './database';
import { ProcessMeter } from './processes';
import { fixed, writeResults } from './report';
import { onTearDown, runSuite, say, settle, sleep, startBenchStack, unlessAServiceDies } from './stack';

const RECOVERIES = Number(process.env.HANDOFF_BENCH_RECOVERIES ?? 40);
const FLOORS = Number(process.env.HANDOFF_BENCH_FLOORS ?? 200);
const SHAPES = [1, 8];
const TIME_LOCK_SECONDS = 1;
const TASK_QUEUE = 'bench-recovery';
const FLOOR_WORKER = path.join(__dirname, 'floor', 'worker.ts');
const SETTLE = { windowMs: 500, busyFraction: 0.05, timeoutMs: 60_000 };
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'recovery.json');

type Figures = LoadFigures & { cpuMsPerOperation: Record<string, number | undefined> };
type Reply = { status: number; body: Record<string, unknown> | undefined };
type Caller = (method: string, pathName: string, body?: object) => Promise<Reply>;

function caller(baseUrl: string, token: string): Caller {
  return async (method, pathName, body) => {
    const response = await fetch(`${baseUrl}${pathName}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
}

function expect(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
}

interface Guarded {
  passportId: string;
  guardians: { did: string; call: Caller }[];
}

/** A person with three accepted guardians (the guardians are the same three people for every Passport). */
async function guardedPassport(
  stack: { signIn: (did: string) => Promise<string>; baseUrl: string; db: Knex },
  guardians: Guarded['guardians'],
): Promise<Guarded> {
  const did = `did:web:bench.example:people:owner-${randomUUID()}`;
  const asOwner = caller(stack.baseUrl, await stack.signIn(did));
  const row: { passport_id: string } = await stack.db('passports').where({ did }).first('passport_id');
  const passportId = row.passport_id;
  for (const [index, guardian] of guardians.entries()) {
    const enrolled = await asOwner('POST', `/v1/passports/${passportId}/recovery/guardians`, {
      guardianId: guardian.did,
      recoveryMethod: 'email',
      contact: `guardian-${index}@bench.example`,
    });
    expect(enrolled, 201, 'enroll a guardian');
    const accepted = await guardian.call(
      'POST',
      `/v1/passports/${passportId}/recovery/guardians/${enrolled.body!.id as string}/accept`,
    );
    expect(accepted, 200, 'accept');
  }
  return { passportId, guardians };
}

/** One recovery, from the request to the execution with the mailed code. */
function recover(desk: Caller, mail: MailCatcher, passports: Guarded[]): Send {
  return async (index) => {
    const { passportId, guardians } = passports[index]!;
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const jwk = await exportJWK(publicKey);
    const hash = await calculateJwkThumbprint(jwk);
    const contact = `contact-${index}-${randomUUID()}@bench.example`;
    const base = `/v1/passports/${passportId}/recovery/requests`;
    const opened = await desk('POST', base, {
      recoveryContact: contact,
      reason: 'bench',
      newCredential: { deviceId: `bench-${index}`, publicKey: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } },
    });
    if (opened.status !== 201) return { ok: false, error: `open: ${opened.status} ${JSON.stringify(opened.body)}` };
    const request = opened.body as unknown as { id: string; approval_nonce: string };
    for (const guardian of guardians.slice(0, 2)) {
      const approved = await guardian.call('POST', `${base}/${request.id}/approvals`, {
        approvedBy: guardian.did,
        timestamp: new Date().toISOString(),
        nonce: request.approval_nonce,
        newCredentialHash: hash,
      });
      if (approved.status !== 200) return { ok: false, error: `approve: ${approved.status}` };
    }
    const coded = await mail.next(contact, (m) => /confirmation code/i.test(m.subject), 120_000);
    const code = /confirmation code: (\d{8})\b/.exec(coded.text)?.[1];
    if (!code) return { ok: false, error: 'no code in the mail' };
    const done = await desk('POST', `${base}/${request.id}/execute`, { confirmationCode: code });
    if (done.status !== 200 || done.body?.status !== 'completed')
      return { ok: false, error: `execute: ${done.status} ${JSON.stringify(done.body)}` };
    return { ok: true };
  };
}

function floorStart(client: Client): Send {
  const prefix = `floor-${randomBytes(4).toString('hex')}`;
  return async (index) => {
    await client.workflow.start<BenchFloorWorkflow>(BENCH_FLOOR_WORKFLOW, {
      workflowId: `${prefix}-${index}`,
      taskQueue: TASK_QUEUE,
      args: [{ answerWithinMs: 1 }],
    });
    return { ok: true };
  };
}

async function main(): Promise<void> {
  const mail = await startMailCatcher({ keep: 5000 });
  onTearDown(() => mail.close());
  const { client, database, baseUrl, token, stack, signIn } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: {
      RATE_LIMIT_DEFAULT: '100000000',
      SMTP_URL: mail.url,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: '1',
      RECOVERY_TIME_LOCK_SECONDS: String(TIME_LOCK_SECONDS),
    },
    workerEntry: FLOOR_WORKER,
  });
  const { api, worker } = stack;
  const pids = [api.pid, worker.pid, ...stack.temporalPids];
  const desk = caller(baseUrl, token);
  const cpuGroups = {
    api: () => [api.pid],
    worker: () => [worker.pid],
    temporal: () => stack.temporalPids,
    postgres: () => serviceBackendPids(database),
    loadGenerator: () => [process.pid],
  };

  const run = async (label: string, count: number, concurrency: number, send: Send): Promise<Figures> => {
    await settle(pids, SETTLE);
    const meter = new ProcessMeter({ memory: {}, cpu: cpuGroups });
    const loaded = summarize([
      await meter.measure(() => unlessAServiceDies(runClosedLoop({ count, concurrency, send }), [api, worker])),
    ]);
    const cpuMsPerOperation = Object.fromEntries(
      Object.entries(meter.usage().cpuSeconds).map(([name, used]) => [
        name,
        used === undefined ? undefined : (1000 * used) / count,
      ]),
    );
    const total = Object.values(cpuMsPerOperation).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
    const cpu = Object.entries(cpuMsPerOperation)
      .map(([name, ms]) => `${name} ${fixed(ms ?? null, 2)}`)
      .join(', ');
    say(
      `  ${label.padEnd(22)} c=${String(concurrency).padStart(2)}: p50 ${fixed(loaded.p50Ms)} ms, p99 ${fixed(loaded.p99Ms)} ms, ${fixed(loaded.throughputPerSecond, 2)}/s, ${loaded.errors} errors; CPU ms/op: ${cpu}; all ${fixed(total, 1)}`,
    );
    for (const sample of loaded.errorSamples) say(`    error: ${sample}`);
    return { ...loaded, cpuMsPerOperation: { ...cpuMsPerOperation, all: total } };
  };

  const guardians = await Promise.all(
    [0, 1, 2].map(async (index) => {
      const did = `did:web:bench.example:people:guardian-${index}`;
      return { did, call: caller(baseUrl, await signIn(did)) };
    }),
  );
  const needed = 2 + RECOVERIES * SHAPES.length;
  say(`Making ${needed} Passports with three accepted guardians each (not measured)…`);
  const passports: Guarded[] = [];
  for (let index = 0; index < needed; index += 1)
    passports.push(await guardedPassport({ signIn, baseUrl, db: database.db }, guardians));
  await sleep(1500); // the guardian change delay

  say('Warm-up: 2 recoveries and 50 plain starts…');
  await run('recovery', 2, 1, recover(desk, mail, passports.splice(0, 2)));
  await run('plain start (floor)', 50, 8, floorStart(client));

  const results: Record<string, { floor: Figures; recovery: Figures }> = {};
  for (const concurrency of SHAPES) {
    say(`Measuring at concurrency ${concurrency}…`);
    const floor = await run('plain start (floor)', FLOORS, concurrency, floorStart(client));
    const recovery = await run(
      'recovery',
      RECOVERIES,
      concurrency,
      recover(desk, mail, passports.splice(0, RECOVERIES)),
    );
    const ratio = recovery.cpuMsPerOperation.all! / floor.cpuMsPerOperation.all!;
    say(
      `  one recovery costs ${fixed(ratio, 1)}× the CPU of one plain start (all processes), time lock ${TIME_LOCK_SECONDS} s`,
    );
    results[`c${concurrency}`] = { floor, recovery };
  }
  const counted = await database
    .db('recovery_requests')
    .where({ status: 'completed' })
    .count<{ n: string | number }[]>({ n: '*' });
  const completed = { n: Number(counted[0]?.n ?? 0) };
  say(`Completed recoveries recorded: ${completed.n} of ${2 + RECOVERIES * SHAPES.length}`);
  writeResults({ timeLockSeconds: TIME_LOCK_SECONDS, results, completed: completed.n }, RESULTS_FILE);
  say(`Wrote ${RESULTS_FILE}`);
}

runSuite(main);
