/**
 * The child process of bundleWorkflowsApart (create-worker.ts): bundles the workflows file it is given (the
 * production set when none) and sends the bundle to its parent.
 */
import { bundleWorkflows } from './create-worker';

const [workflowsPath] = process.argv.slice(2);
bundleWorkflows(workflowsPath).then(
  (bundle) => process.send!(bundle, () => process.exit(0)),
  (error: unknown) => {
    process.stderr.write(`bundling the workflows failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
