/** Production entry of a worker alone (`npm run start:worker`); see worker-process.ts. */
import { runWorkerProcess } from './worker-process';

runWorkerProcess(process.env).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
