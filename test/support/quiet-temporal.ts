// From the two modules it needs, not the package's index: that loads the bundler and the worker too (~0.2 s of CPU
// in every test file, most of which start no worker).
import { DefaultLogger } from '@temporalio/worker/lib/logger';
import { Runtime } from '@temporalio/worker/lib/runtime';

// The SDK logs every worker state change at INFO and every failed activity attempt at WARN, and tests fail
// activities on purpose: they show its errors only, unless HANDOFF_TEST_LOGS asks for everything.
try {
  const level = process.env.HANDOFF_TEST_LOGS ? 'DEBUG' : 'ERROR';
  // Core's own lines too (the dev server's missing heartbeat capability is warned about at every worker start).
  Runtime.install({
    logger: new DefaultLogger(level),
    telemetryOptions: { logging: { filter: { core: level, other: level } } },
  });
} catch {
  // Already installed by an earlier file in this jest worker.
}
