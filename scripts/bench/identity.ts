/**
 * `npm run bench -- identity`: the identity layer. Each part measures in a file of its own against the
 * same stack (an API and a worker as child processes, a fresh database); prints its figures and writes
 * them all to bench-results/identity.json.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { measurePassports } from './identity-passports';
import { writeResults } from './report';
import { runSuite, say, startBenchStack } from './stack';

const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'identity.json');

runSuite(async () => {
  // Agent and organization keys are sealed: the API needs a secrets key of its own for the run.
  const { baseUrl, token, database } = await startBenchStack({ taskQueue: 'bench-identity', env: { SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  const passports = await measurePassports({ baseUrl, token });
  say(`${cpus().length} CPUs, Node ${process.version}, ${database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}.`);
  writeResults({ suite: 'identity', passports }, RESULTS_FILE);
});
