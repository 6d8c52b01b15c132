/** Stopping a child process, and a watchdog that stops it when its parent is killed. */
import { spawn } from 'node:child_process';

/** How long a stopped child has after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 10_000;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGTERM, then SIGKILL after the grace; resolves once the process is gone. */
export async function stopPid(pid: number): Promise<void> {
  const deadline = Date.now() + STOP_GRACE_MS;
  try {
    process.kill(pid, 'SIGTERM');
    // A stopped process (SIGSTOP, a suspended job) acts on SIGTERM only once continued, as a shell's kill does.
    process.kill(pid, 'SIGCONT');
  } catch {
    return;
  }
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A killed parent (kill -9) cannot stop its children, and Node cannot ask Linux for a parent-death signal: a
 * tiny process of its own session watches the parent and stops the server once the parent is gone.
 */
const WATCHDOG_SOURCE = `
const [parent, child, grace] = process.argv.slice(1).map(Number);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const timer = setInterval(() => {
  if (!alive(child)) process.exit(0);
  if (alive(parent)) return;
  clearInterval(timer);
  try { process.kill(child, 'SIGTERM'); } catch { process.exit(0); }
  setTimeout(() => { try { process.kill(child, 'SIGKILL'); } catch {} process.exit(0); }, grace).unref();
  setInterval(() => { if (!alive(child)) process.exit(0); }, 100);
}, 250);
`;

export function watchParent(childPid: number): void {
  const watchdog = spawn(
    process.execPath,
    ['-e', WATCHDOG_SOURCE, String(process.pid), String(childPid), String(STOP_GRACE_MS)],
    { stdio: 'ignore', detached: true },
  );
  watchdog.unref();
}
