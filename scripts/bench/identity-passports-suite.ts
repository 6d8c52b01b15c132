/**
 * The Passports part of `npm run bench -- identity` (identity.ts runs it in a process of its own): an API
 * and a worker as child processes on a fresh database; writes bench-results/identity-passports.json.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { measurePassports } from './identity-passports';
import { writeResults } from './report';
import { runSuite, say, startBenchStack } from './stack';

const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'identity-passports.json');

runSuite(async () => {
  // Agent and organization keys are sealed: the API needs a secrets key of its own for the run.
  const { baseUrl, token, database } = await startBenchStack({
    taskQueue: 'bench-identity',
    env: { SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
  });
  const passports = await measurePassports({ baseUrl, token });
  say(
    `${cpus().length} CPUs, Node ${process.version}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}.`,
  );
  writeResults({ suite: 'identity-passports', passports }, RESULTS_FILE);
});
