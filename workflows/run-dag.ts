import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { dagQuery, dagStartedUpdate, type DagState, type RunDagInput } from '../contracts/run-dag';
import { DagRun } from './run-dag-run';

/**
 * A workflow DAG: runs its nodes in dependency order, independent branches in parallel, each agent node as
 * an execution and each approval node as an approval (child workflows, so each has its own history, read
 * model and provenance), condition nodes by evaluating their condition. The first failure stops new nodes
 * from starting; the nodes already running finish, the rest are skipped, and the workflow fails. A step
 * that cannot be stored fails the run at once: its last stored state is kept as failed, with the reason.
 */
export async function runDagWorkflow(input: RunDagInput): Promise<DagState> {
  const run = new DagRun(input);

  setHandler(dagQuery, () => run.state);
  setHandler(dagStartedUpdate, async () => {
    await condition(() => run.started || run.dag.failure !== undefined);
    if (!run.started) run.dag.throwIfFailed();
    return run.state;
  });

  await run.start();
  for (;;) {
    await run.startReady();
    if (run.idle) break;
    await run.nodeEnded();
  }
  await run.finish();

  await condition(allHandlersFinished);
  return run.state;
}
