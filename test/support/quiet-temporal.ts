import { DefaultLogger, Runtime } from '@temporalio/worker';

// The SDK logs every worker state change at INFO; tests show its warnings and errors only.
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed by an earlier file in this jest worker.
}
