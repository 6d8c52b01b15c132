/** The bench's worker process: the production worker with the floor workflow added to its bundle. */
import path from 'node:path';
import { runWorkerProcess } from '../../../app/worker-process';

runWorkerProcess(process.env, { workflowsPath: path.join(__dirname, 'workflows.ts') }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
