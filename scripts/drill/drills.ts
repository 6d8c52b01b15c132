/**
 * The six fault drills (the ledger's in ledger-tamper.ts). Each drives a bounded load, injects one fault, restores the stack, then counts: every
 * acknowledged request against PostgreSQL and its workflow, every pending approval answered twice. A drill
 * returns what it counted and the problems it found; any problem fails it.
 */
import { dispatcherState } from './checks';
import { tamperLedger } from './ledger-tamper';
import { ANSWER_SLACK_MS, drive, PATHS } from './load';
import { settle, type Drill, type DrillOutcome } from './outcome';
import { REQUEST_TIMEOUT_MS, sleep, type DrillStack } from './stack';

const LOAD = { count: 60, concurrency: 4, routingEvery: 4 };
const OUTAGE_SECONDS = Number(process.env.HANDOFF_DRILL_OUTAGE_SECONDS ?? 30);
/** After a restored dependency, the load must be acknowledged again within this (Retry-After included). */
const RECOVERY_BOUND_MS = 15_000;

const killWorker: Drill = {
  name: 'worker-kill',
  title: 'kill -9 the worker mid-load; start a new one',
  async run(stack) {
    const tally = await drive(stack, {
      drill: this.name,
      ...LOAD,
      during: async () => {
        stack.killWorker();
        await sleep(2000);
        await stack.startWorker();
      },
    });
    return settle(stack, tally, { counted: [], problems: [] });
  },
};

const killApi: Drill = {
  name: 'api-kill',
  title: 'kill -9 the API mid-load; retry every unanswered request with its Idempotency-Key',
  async run(stack) {
    let dispatcherAtKill = '';
    const tally = await drive(stack, {
      drill: this.name,
      ...LOAD,
      during: async () => {
        dispatcherAtKill = await dispatcherState(stack.temporal);
        stack.killApi();
        await sleep(1000);
        await stack.startApi();
      },
    });
    const outcome: DrillOutcome = { counted: [], problems: [] };
    // Each request that had to be retried is sent once more, unchanged: the stored answer comes back, with the same id.
    const retried = tally.sent.filter((sent) => sent.id && sent.attempts > 1);
    let same = 0;
    for (const sent of retried) {
      const response = await fetch(`${stack.baseUrl}${PATHS[sent.kind]}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${stack.token}`,
          'content-type': 'application/json',
          'idempotency-key': sent.key,
        },
        body: JSON.stringify(sent.body),
      });
      const body = (await response.json()) as { id?: string; routing_id?: string };
      if (
        response.ok &&
        response.headers.get('idempotent-replayed') === 'true' &&
        (body.id ?? body.routing_id) === sent.id
      )
        same += 1;
      else
        outcome.problems.push(
          `${sent.key}: sent again, answered ${response.status} with ${body.id ?? body.routing_id ?? 'no id'} instead of the replay of ${sent.id ?? ''}`,
        );
    }
    outcome.counted.push(`the sweep's dispatcher when the API was killed ${dispatcherAtKill}`);
    outcome.counted.push(
      `${tally.statuses.get(0) ?? 0} attempts without an answer (the API dead or restarting); ${retried.length} requests acknowledged only after a retry with their key; sent again, ${same} replayed the same id`,
    );
    return settle(stack, tally, outcome);
  },
};

const killTemporal: Drill = {
  name: 'temporal-kill',
  title: 'kill -9 the Temporal server mid-load and restart it',
  async run(stack) {
    const tally = await drive(stack, {
      drill: this.name,
      ...LOAD,
      during: async () => {
        stack.killTemporal();
        await sleep(2000);
        await stack.startTemporal();
      },
    });
    const outcome: DrillOutcome = { counted: [], problems: [] };
    const other5xx = [...tally.statuses.entries()].filter(([status]) => status >= 500 && status !== 503);
    if (other5xx.length > 0)
      outcome.problems.push(`5xx other than 503: ${other5xx.map(([status, n]) => `${status} ×${n}`).join(', ')}`);
    return settle(stack, tally, outcome);
  },
};

async function readiness(baseUrl: string): Promise<number> {
  try {
    const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

const stopPostgres: Drill = {
  name: 'postgres-stop',
  title: `stop PostgreSQL for ${OUTAGE_SECONDS} s under load`,
  async run(stack) {
    const seen: number[] = [];
    let restartedAt = 0;
    let readyAgainMs = -1;
    const tally = await drive(stack, {
      drill: this.name,
      ...LOAD,
      count: 90,
      during: async () => {
        stack.cluster.stop();
        const until = Date.now() + OUTAGE_SECONDS * 1000;
        while (Date.now() < until) {
          seen.push(await readiness(stack.baseUrl));
          await sleep(1000);
        }
        stack.cluster.start();
        restartedAt = Date.now();
        while ((await readiness(stack.baseUrl)) !== 200) await sleep(200);
        readyAgainMs = Date.now() - restartedAt;
      },
    });
    const outcome: DrillOutcome = { counted: [], problems: [] };
    const firstAck = tally.acknowledgedAt.filter((at) => at >= restartedAt).sort((a, b) => a - b)[0];
    const recoveredMs = firstAck === undefined ? -1 : firstAck - restartedAt;
    outcome.counted.push(
      `/readyz during the outage: ${seen.filter((status) => status === 503).length} × 503 of ${seen.length}; ready again ${readyAgainMs} ms after the restart; load acknowledged again after ${recoveredMs} ms`,
    );
    const badStatuses = [...tally.statuses.keys()].filter(
      (status) => status !== 0 && !(status >= 200 && status < 300) && status !== 503 && status !== 409,
    );
    if (badStatuses.length > 0)
      outcome.problems.push(`answers other than 2xx, 503 and 409 in flight: ${badStatuses.join(', ')}`);
    const unanswered = tally.statuses.get(0) ?? 0;
    if (unanswered > 0) outcome.problems.push(`${unanswered} requests got no answer at all`);
    if (tally.slowestMs > REQUEST_TIMEOUT_MS + ANSWER_SLACK_MS)
      outcome.problems.push(`an answer took ${tally.slowestMs} ms, over the ${REQUEST_TIMEOUT_MS} ms bound`);
    if (!seen.includes(503)) outcome.problems.push('/readyz never said unready during the outage');
    if (readyAgainMs < 0) outcome.problems.push('/readyz never said ready again');
    if (recoveredMs < 0 || recoveredMs > RECOVERY_BOUND_MS)
      outcome.problems.push(
        `the load was not acknowledged again within ${RECOVERY_BOUND_MS} ms of the restart (${recoveredMs} ms)`,
      );
    return settle(stack, tally, outcome);
  },
};

const expiryWithoutWorker: Drill = {
  name: 'expiry-without-worker',
  title: 'an approval’s expiry passes while no worker runs; the answer that arrives with the new worker is 409',
  async run(stack) {
    const EXPIRES_IN_SECONDS = 8;
    /** How long the new worker has to claim the expiries its timers find due. */
    const EXPIRY_CLAIM_WAIT_MS = 20_000;
    const tally = await drive(stack, {
      drill: this.name,
      count: 12,
      concurrency: 4,
      expiresInSeconds: EXPIRES_IN_SECONDS,
    });
    const outcome: DrillOutcome = { counted: [], problems: [] };
    stack.killWorker();
    await sleep(EXPIRES_IN_SECONDS * 1000 + 1000);
    const answered = tally.sent
      .filter((sent) => sent.id)
      .map(async (sent) => {
        const response = await respondUntilAnswered(stack, sent.id!);
        return { id: sent.id!, status: response };
      });
    await sleep(2000);
    await stack.startWorker();
    const answers = await Promise.all(answered);
    const conflicts = answers.filter((answer) => answer.status === 409).length;
    for (const answer of answers.filter((a) => a.status !== 409))
      outcome.problems.push(`approval ${answer.id}: answered ${answer.status} after its expiry`);
    // The answers' 409s come from PostgreSQL's claim at once; the expiry itself is the new worker's timer, claimed once it runs.
    const countExpired = () =>
      stack
        .db('approvals')
        .whereIn(
          'approval_id',
          answers.map((answer) => answer.id),
        )
        .where({ status: 'expired' })
        .count<{ count: string }[]>({ count: '*' });
    let expired = await countExpired();
    for (
      let waited = 0;
      Number(expired[0]?.count ?? 0) < answers.length && waited < EXPIRY_CLAIM_WAIT_MS;
      waited += 500
    ) {
      await sleep(500);
      expired = await countExpired();
    }
    outcome.counted.push(
      `${answers.length} approvals expired with no worker; their answers: ${conflicts} × 409; ${expired[0]?.count ?? 0} expired in PostgreSQL`,
    );
    if (Number(expired[0]?.count ?? 0) !== answers.length)
      outcome.problems.push('not every approval is expired in PostgreSQL');
    return settle(stack, tally, outcome);
  },
};

async function respondUntilAnswered(stack: DrillStack, id: string): Promise<number> {
  for (;;) {
    const response = await fetch(`${stack.baseUrl}/v1/approvals/${id}/respond`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.approverToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved' }),
    });
    await response.arrayBuffer();
    if (response.status !== 503) return response.status;
    await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
  }
}

export const DRILLS: Drill[] = [killWorker, killApi, killTemporal, stopPostgres, expiryWithoutWorker, tamperLedger];
