import type { DevServer } from '../../scripts/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { handoffDevServer?: DevServer }).handoffDevServer?.stop();
}
