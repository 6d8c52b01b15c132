import { freePort } from '../../lib/net';
import { provisionTemporal } from '../../scripts/provision-temporal';
import { startTemporalDevServer, type DevServer } from '../../scripts/temporal-dev-server';

/** One Temporal dev server (in memory) for the whole run; each test file uses its own task queue. */
export default async function globalSetup(): Promise<void> {
  const binaries = await provisionTemporal((message) => process.stderr.write(`${message}\n`));
  process.env.HANDOFF_TEST_TEMPORAL_CLI = binaries.cli;
  process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER = binaries.testServer;
  const server = await startTemporalDevServer({ cli: binaries.cli, port: await freePort(), namespace: 'default' });
  process.env.HANDOFF_TEST_TEMPORAL_ADDRESS = server.address;
  (globalThis as { handoffDevServer?: DevServer }).handoffDevServer = server;
}
