/**
 * The child process of bundleWorkflowsApart (create-worker.ts): bundles the workflows file it is given (the
 * production set when none), with the tracing interceptors when given --traced, and sends the bundle to its parent.
 */
import { bundleWorkflows, TRACED_FLAG } from './create-worker';

const args = process.argv.slice(2);
const [workflowsPath] = args.filter((arg) => arg !== TRACED_FLAG);
bundleWorkflows(workflowsPath, { traced: args.includes(TRACED_FLAG) }).then(
  (bundle) => process.send!(bundle, () => process.exit(0)),
  (error: unknown) => {
    process.stderr.write(
      `bundling the workflows failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
