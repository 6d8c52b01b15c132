/**
 * `npm run bench [-- suite …]`: runs the benchmark suites one after another, each in a process of its own
 * (each sets up and tears down its own Temporal, Postgres and services, so one cannot skew the next),
 * and ends with the list of suites and how each ended. Each suite prints its own figures and writes them
 * to bench-results/<suite>.json.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

interface Suite {
  name: string;
  script: string;
  measures: string;
}

const SUITES: Suite[] = [
  {
    name: 'routing',
    script: 'routing.ts',
    measures: 'POST /v1/orch/routing against the floor of a no-op Update-with-Start',
  },
  {
    name: 'hot-paths',
    script: 'hot-paths.ts',
    measures:
      'routing, opening and answering approvals against the plain-start floor and LangGraph interrupt/resume (in process, and behind its own HTTP server checking an EdDSA JWT), with CPU per operation per process; 10,000 open approvals on the default cache; every record counted',
  },
  {
    name: 'recovery',
    script: 'recovery.ts',
    measures:
      'one guardian recovery (request, two approvals, a 1 s time lock, the mailed code, execute) against the plain-start floor, with CPU per operation per process',
  },
  {
    name: 'noisy-neighbour',
    script: 'noisy-neighbour.ts',
    measures:
      "organization B's routing p50/p99 at c=1 alone, and while organization A's 100 routings fan out to 30 subscriptions of an endpoint that never answers",
  },
  {
    name: 'ledger',
    script: 'ledger.ts',
    measures: 'ledger appends per second (single and batched) and inclusion-proof time at 100,000 and 1,000,000 leaves',
  },
  {
    name: 'approvals',
    script: 'approvals.ts',
    measures: '10,000 open approvals on one worker, answered; executions against a local agent',
  },
  {
    name: 'webhooks',
    script: 'webhooks.ts',
    measures: 'webhook fan-out: 1,000 events to 3 subscribers on a local receiver, until all are delivered',
  },
  {
    name: 'identity',
    script: 'identity.ts',
    measures:
      'delegation-token verifications per second with 100,000 revocations on record; session → delegation token exchange p50/p99; Passport creation (POST /v1/passports) against a Passport read, and device registration',
  },
  {
    name: 'reasoning',
    script: 'reasoning.ts',
    measures:
      'model selections per second over 500 models, the time /v1/reason adds to a direct provider call, prompt resolution with 10,000 prompts × 20 versions',
  },
  {
    name: 'orchestration',
    script: 'orchestration.ts',
    measures:
      'escalation rule evaluation (1, 100, 10,000 rules), routing p99 with 1,000 rules against none, /route at concurrency 32',
  },
  {
    name: 'marketplace',
    script: 'marketplace.ts',
    measures:
      'connector search p50/p99 over 10,000 connectors; OAuth install → active (state, claim, code exchange at a local token endpoint, sealed tokens) per second; CPU per operation',
  },
  {
    name: 'capabilities',
    script: 'capabilities.ts',
    measures:
      'the one matcher with 10,000 definitions, 1,000 people, 1,000 agents and 100,000 grants (match p50/p99); a routing’s reviewer load and assignment from grants against the old capabilities column, in the same run',
  },
  {
    name: 'observability',
    script: 'observability.ts',
    measures:
      'requests/s and API CPU per request of a cheap authenticated GET with metrics, tracing (spans dropped), both, against neither',
  },
];

function runSuite(suite: Suite): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, suite.script)], {
      stdio: 'inherit',
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.once('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown.length > 0)
    throw new Error(
      `Unknown suite(s) ${unknown.join(', ')}; the suites are ${SUITES.map((suite) => suite.name).join(', ')}`,
    );
  const chosen = asked.length > 0 ? SUITES.filter((suite) => asked.includes(suite.name)) : SUITES;
  const outcomes: Array<{ suite: Suite; code: number }> = [];
  for (const suite of chosen) {
    process.stdout.write(`\n=== bench: ${suite.name} — ${suite.measures}\n`);
    outcomes.push({ suite, code: await runSuite(suite) });
  }
  process.stdout.write('\n=== bench: summary\n');
  for (const { suite, code } of outcomes)
    process.stdout.write(`  ${suite.name.padEnd(14)} ${code === 0 ? 'done' : `FAILED (exit ${code})`}\n`);
  if (outcomes.some(({ code }) => code !== 0)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
