/**
 * The processes the benchmark measures: services run as child Node processes, and what /proc says about
 * the memory and CPU of any process on this machine (Linux only; elsewhere the figures are missing).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../lib/net';

export { freePort };

/**
 * A worker's runtime as `npm run start:worker` sets it: V8's old space capped at 384 MiB, so that the garbage of a
 * burst is collected instead of growing the heap (docs/operations.md).
 */
export const WORKER_NODE_OPTIONS = '--max-old-space-size=384';

export interface Service {
  name: string;
  /** The pid of the Node process running the service itself (no npx or tsx wrapper in between). */
  pid: number;
  /** Rejects when the process exits before stop() was called. */
  exited: Promise<never>;
  stop(): Promise<void>;
}

/**
 * Runs a TypeScript entry in a child Node process with tsx loaded in-process (`node --import tsx`), so
 * the child's pid is the process whose memory is measured. Its stderr is shown, prefixed with its name.
 */
/**
 * With HANDOFF_BENCH_CPU_PROFILE=<dir>, each service writes V8 CPU profiles under <dir>/<name>/ when it
 * stops, one per thread (Node's default names end in pid.tid.seq; the main thread's is the largest, beside
 * tsx's loader thread and a worker's workflow threads), readable in Chrome DevTools or by
 * scripts/bench/profile-summary.ts.
 */
function profilingFlags(name: string): string[] {
  const dir = process.env.HANDOFF_BENCH_CPU_PROFILE;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', path.join(dir, name)] : [];
}

export function spawnService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  options: { onStderr?: (line: string) => void } = {},
): Service {
  const child = spawn(process.execPath, [...profilingFlags(name), '--import', 'tsx', entry, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const onStderr = options.onStderr ?? ((line: string) => process.stderr.write(`[${name}] ${line}\n`));
  createInterface({ input: child.stderr }).on('line', onStderr);
  let stopping = false;
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => {
      if (!stopping)
        reject(new Error(`${name} exited unexpectedly (${signal ? `signal ${signal}` : `code ${String(code)}`})`));
    });
  });
  exited.catch(() => undefined);
  return {
    name,
    pid: child.pid,
    exited,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        // SIGTERM lets the API drain and the worker finish its tasks; a hung one is killed.
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Kibibytes of a /proc/<pid>/status field (VmRSS now, VmHWM the peak so far); undefined once gone. */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc counts CPU time in these ticks per second. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User plus system CPU seconds a process has used so far; undefined once gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name in parentheses may hold spaces; after it, utime and stime are the 12th and 13th fields.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU ticks of the whole machine, to tell how much else competed for the cores. */
function machineTicks(): { busy: number; total: number } | undefined {
  try {
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const ticks = values.map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

export interface Usage {
  /** Highest resident memory sampled, in KiB, per process watched for memory. */
  peakRssKb: Record<string, number | undefined>;
  /** CPU seconds used, per group of processes watched for CPU. */
  cpuSeconds: Record<string, number | undefined>;
  /** How busy all cores were, whoever used them. */
  machineBusyPercent: number | undefined;
}

/**
 * Adds up what processes use over several stretches of time: the peak resident memory of single
 * processes (sampled every few milliseconds), the CPU of groups of processes, and how busy the machine was.
 * A CPU group's pids are read at the start and end of each stretch, so it may be a changing set
 * (Postgres backends) as long as its members outlive the stretch they work in.
 */
export class ProcessMeter {
  private readonly peaksKb = new Map<string, number>();
  private readonly cpuTotals = new Map<string, number>();
  private machineBusy = 0;
  private machineTotal = 0;

  constructor(
    private readonly watch: {
      memory: Record<string, number>;
      cpu: Record<string, () => number[] | Promise<number[]>>;
    },
    private readonly sampleEveryMs = 100,
  ) {}

  async measure<T>(work: () => Promise<T>): Promise<T> {
    const cpuBefore = await this.cpuByPid();
    const machineBefore = machineTicks();
    this.sampleMemory();
    const timer = setInterval(() => this.sampleMemory(), this.sampleEveryMs);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      this.sampleMemory();
      this.addCpu(cpuBefore, await this.cpuByPid());
      const machineAfter = machineTicks();
      if (machineBefore && machineAfter) {
        this.machineBusy += machineAfter.busy - machineBefore.busy;
        this.machineTotal += machineAfter.total - machineBefore.total;
      }
    }
  }

  usage(): Usage {
    return {
      peakRssKb: Object.fromEntries(Object.keys(this.watch.memory).map((name) => [name, this.peaksKb.get(name)])),
      cpuSeconds: Object.fromEntries(Object.keys(this.watch.cpu).map((name) => [name, this.cpuTotals.get(name)])),
      machineBusyPercent: this.machineTotal > 0 ? (100 * this.machineBusy) / this.machineTotal : undefined,
    };
  }

  private sampleMemory(): void {
    for (const [name, pid] of Object.entries(this.watch.memory)) {
      const kb = procStatusKb(pid, 'VmRSS');
      if (kb !== undefined) this.peaksKb.set(name, Math.max(kb, this.peaksKb.get(name) ?? 0));
    }
  }

  private async cpuByPid(): Promise<Map<string, Map<number, number>>> {
    const groups = new Map<string, Map<number, number>>();
    for (const [name, pidsOf] of Object.entries(this.watch.cpu)) {
      const seconds = new Map<number, number>();
      for (const pid of await pidsOf()) {
        const used = cpuSeconds(pid);
        if (used !== undefined) seconds.set(pid, used);
      }
      groups.set(name, seconds);
    }
    return groups;
  }

  /** A pid that appeared during the stretch counts from zero: all its CPU was spent in it. */
  private addCpu(before: Map<string, Map<number, number>>, after: Map<string, Map<number, number>>): void {
    for (const [name, seconds] of after) {
      if (seconds.size === 0) continue;
      let used = 0;
      for (const [pid, total] of seconds) used += total - (before.get(name)?.get(pid) ?? 0);
      this.cpuTotals.set(name, (this.cpuTotals.get(name) ?? 0) + used);
    }
  }
}
