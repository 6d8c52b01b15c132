import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { floorUpdate } from './contract';

/**
 * The benchmark's floor: a workflow that answers one Update-with-Start and does nothing else, so the
 * routing benchmark can report its cost against what Temporal alone takes on the same server.
 */
export async function benchFloorWorkflow(input: { answerWithinMs: number }): Promise<boolean> {
  let answered = false;
  setHandler(floorUpdate, () => {
    answered = true;
    return 'ok';
  });
  const inTime = await condition(() => answered, input.answerWithinMs);
  await condition(allHandlersFinished);
  return inTime;
}
