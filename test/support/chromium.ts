import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// Debian's chromium package: the binary itself, or the wrapper script that starts it.
const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'];

const found = () => CANDIDATES.find((candidate) => existsSync(candidate));

/**
 * The machine's Chromium, installed from Debian's packages when missing and this process may (root with
 * apt-get), as .ci/run does first. Otherwise the reason it cannot be had, for the test to print as it skips.
 */
export function chromiumExecutable(): { path: string } | { missing: string } {
  const present = found();
  if (present) return { path: present };
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get'))
    return {
      missing: 'Chromium is not installed and this process cannot install it (apt-get install -y chromium needs root)',
    };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const installed = spawnSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq chromium'], {
    env,
    stdio: 'ignore',
    timeout: 10 * 60_000,
  });
  return found()
    ? { path: found()! }
    : {
        missing: `Installing Chromium with apt-get failed (exit ${installed.status ?? installed.signal ?? 'unknown'})`,
      };
}

/**
 * The machine's Chromium for a browser test, and the describe to run it under: a skip, said on stderr, where
 * there is none, except in CI (.ci/run installs it), where a missing browser fails the test file.
 */
export function chromiumForTest(name: string): {
  executable: { path: string } | { missing: string };
  describeWithChromium: jest.Describe;
} {
  const executable = chromiumExecutable();
  if ('missing' in executable && process.env.CI) throw new Error(`The ${name} needs Chromium: ${executable.missing}`);
  if ('missing' in executable) console.error(`Skipping the ${name}: ${executable.missing}`);
  return { executable, describeWithChromium: 'path' in executable ? describe : describe.skip };
}
