/**
 * A PostgreSQL cluster of the drill's own: initdb into a temporary folder, served on a free port by the
 * machine's PostgreSQL binaries, so that the drill can stop and start it. initdb refuses to run as root: as
 * root, the folder is given to the `postgres` user and every binary runs as that user (runuser).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../lib/net';

const SERVER_USER = 'postgres';

/** The folder of initdb and pg_ctl: PG_BIN_DIR, else pg_config's, else the newest under /usr/lib/postgresql. */
export function postgresBinDir(): string {
  const candidates = [process.env.PG_BIN_DIR];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // pg_config is not on PATH; the distribution's folders follow.
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => path.join(root, version, 'bin')));
  }
  const found = candidates.find(
    (dir) => dir && existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')),
  );
  if (!found)
    throw new Error(
      'No PostgreSQL server binaries (initdb, pg_ctl): install PostgreSQL, or set PG_BIN_DIR to the folder that holds them',
    );
  return found;
}

function userId(name: string): { uid: number; gid: number } {
  const run = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: run('-u'), gid: run('-g') };
}

export interface Cluster {
  port: number;
  url: string;
  start(): void;
  /** pg_ctl stop -m fast: sessions are ended and new connections refused, as in an outage. */
  stop(): void;
  destroy(): void;
}

export async function createCluster(): Promise<Cluster> {
  const bin = postgresBinDir();
  const root = process.getuid?.() === 0;
  const folder = mkdtempSync(path.join(tmpdir(), 'handoff-drill-pg-'));
  if (root) {
    const { uid, gid } = userId(SERVER_USER);
    chownSync(folder, uid, gid);
  }
  const data = path.join(folder, 'data');
  const port = await freePort();
  const run = (tool: string, args: string[]) => {
    const command = root ? 'runuser' : path.join(bin, tool);
    const argv = root ? ['-u', SERVER_USER, '--', path.join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: folder });
    if (result.status !== 0)
      throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr || result.stdout || String(result.error)}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  // Durability is not what the drill checks, and fsync on a slow disk would only make it slower.
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=100`;
  const start = () => run('pg_ctl', ['-D', data, '-l', path.join(folder, 'server.log'), '-o', options, '-w', 'start']);
  start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    destroy() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already stopped.
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
