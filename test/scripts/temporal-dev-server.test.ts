import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, portAnswers } from '../../lib/net';
import {
  DEV_SERVER_NICENESS,
  PID_FILE,
  startTemporalDevServer,
  type DevServer,
} from '../../scripts/temporal-dev-server';

const cli = () => process.env.HANDOFF_TEST_TEMPORAL_CLI!;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let dataDir: string;
let started: DevServer | undefined;
const strays: number[] = [];
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'handoff-temporal-'));
});
afterEach(async () => {
  await started?.stop();
  started = undefined;
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** `npm start`'s way of starting it, in a process of its own that the test can kill -9; resolves with both pids. */
function startInChild(port: number): Promise<{ parent: number; server: number }> {
  const source = `
    const { startTemporalDevServer } = require('./scripts/temporal-dev-server');
    startTemporalDevServer({ cli: ${JSON.stringify(cli())}, dataDir: ${JSON.stringify(dataDir)}, port: ${port}, namespace: 'default' })
      .then((server) => process.stdout.write(JSON.stringify({ server: server.pid }) + '\\n'));
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: path.resolve(__dirname, '../..'),
  });
  strays.push(child.pid!);
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) =>
      resolve({ parent: child.pid!, server: (JSON.parse(chunk.toString()) as { server: number }).server }),
    );
    child.once('exit', (code) => reject(new Error(`the starter exited with ${String(code)}`)));
  });
}

describe('the Temporal dev server of npm start', () => {
  it('does not outlive a parent killed with SIGKILL: its watchdog stops it and frees the port', async () => {
    const port = await freePort();
    const { parent, server } = await startInChild(port);
    strays.push(server);
    expect(await portAnswers(port)).toBe(true);
    process.kill(parent, 'SIGKILL');
    await until('the server stopping', () => !alive(server));
    expect(await portAnswers(port)).toBe(false);
  });

  it('runs below normal priority when it yields to the API, every thread of it, and serves as before', async () => {
    const port = await freePort();
    started = await startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default', yieldToApi: true });
    expect(readFileSync(`/proc/${started.pid}/cmdline`, 'utf8')).toContain('start-dev');
    const threads = readdirSync(`/proc/${started.pid}/task`);
    expect(threads.length).toBeGreaterThan(1);
    // After the name in parentheses, nice is the 17th field of /proc/<pid>/task/<tid>/stat.
    const niceOf = (tid: string) => {
      const stat = readFileSync(`/proc/${started!.pid}/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    expect(new Set(threads.map(niceOf))).toEqual(new Set([DEV_SERVER_NICENESS]));
    expect(await portAnswers(port)).toBe(true);
  });

  it('takes over a healthy server of its own data folder that an earlier run left behind, and stops it on stop()', async () => {
    const port = await freePort();
    const first = await startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default' });
    strays.push(first.pid);
    const record = readFileSync(path.join(dataDir, PID_FILE), 'utf8');
    // As if the run that started it was gone without stopping it (its watchdog killed too).
    started = await startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default' });
    expect(started).toMatchObject({ reused: true, pid: first.pid, address: `127.0.0.1:${port}` });
    expect(readFileSync(path.join(dataDir, PID_FILE), 'utf8')).toBe(record);
    await started.stop();
    started = undefined;
    await until('the server stopping', () => !alive(first.pid));
  });

  it('stops a server of its own that no longer answers, and starts a new one on the same port', async () => {
    const port = await freePort();
    const first = await startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default' });
    strays.push(first.pid);
    process.kill(first.pid, 'SIGSTOP');
    started = await startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default' });
    expect(started.reused).toBe(false);
    expect(started.pid).not.toBe(first.pid);
    expect(alive(first.pid)).toBe(false);
  });

  it('refuses, naming the port, when something else holds it', async () => {
    const stranger = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => stranger.listen(port, '127.0.0.1', resolve));
    writeFileSync(
      path.join(dataDir, PID_FILE),
      JSON.stringify({ pid: 999_999, port, db_filename: path.join(dataDir, 'temporal.db') }),
    );
    try {
      await expect(startTemporalDevServer({ cli: cli(), dataDir, port, namespace: 'default' })).rejects.toThrow(
        `Port ${port} is taken by a process that is not this data folder's Temporal dev server`,
      );
    } finally {
      await new Promise((resolve) => stranger.close(resolve));
    }
  });
});
