import { rm } from 'node:fs/promises';
import type { RunResources } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const run = globalThis as RunResources;
  await run.handoffDevServer?.stop();
  await run.handoffTemplate?.drop();
  const dir = process.env.HANDOFF_TEST_RUN_DIR;
  if (dir) await rm(dir, { recursive: true, force: true });
}
