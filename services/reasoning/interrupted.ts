import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { interruptedCallWrite, openCallsStartedBefore } from '../../db/reasoning-calls';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import type { Logger } from '../../lib/logger';
import { askedOf, REASONED_STEP } from './record';
import type { ReasoningSettings } from './settings';

/** Past the call's time budget, how long its completion may still take before the call counts as interrupted. */
export const COMPLETION_GRACE_MS = 60_000;
/** How often an instance looks for interrupted calls, at most. */
export const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 100;

interface SweepDeps {
  db: Knex;
  settings: Pick<ReasoningSettings, 'totalTimeoutMs'>;
  logger: Logger;
}

/**
 * Closes the calls left open by an API process that ended before completing them (it had sent, or was
 * about to send, their answer): each becomes a reasoning_interrupted provenance record whose outcome, usage
 * and cost are unknown. Safe on several instances at once and against a late completion: each call is closed
 * by one conditional update, in the statement that appends its record.
 */
export async function recordInterruptedCalls(deps: SweepDeps, now: Date = new Date()): Promise<number> {
  const open = await openCallsStartedBefore(
    deps.db,
    new Date(now.getTime() - deps.settings.totalTimeoutMs - COMPLETION_GRACE_MS),
    SWEEP_BATCH,
  );
  for (const call of open) {
    await appendProvenance(
      deps.db,
      {
        organization_id: call.organization_id,
        entry: {
          subject_id: call.call_id,
          step_id: REASONED_STEP,
          timestamp: now.toISOString(),
          actor: { type: 'orch_core', did: ORCH_CORE_DID },
          action: 'reasoning_interrupted',
          input_data: askedOf(call),
          output_data: { started_at: call.created_at.toISOString(), routing_decision: call.routing_decision },
          reasoning:
            'The API process ended before the call was completed on record: whether a provider answered, and its usage and cost, are unknown',
        },
      },
      interruptedCallWrite(call.call_id),
    );
  }
  if (open.length > 0) deps.logger.warn('reasoning calls recorded as interrupted', { count: open.length });
  return open.length;
}

/** Runs the sweep in the background when one is due: the reasoning path never waits for it. */
export interface InterruptedCallSweeper {
  due(): void;
}

export function createInterruptedCallSweeper(deps: SweepDeps, now: () => number = Date.now): InterruptedCallSweeper {
  let lastRunMs = Number.NEGATIVE_INFINITY;
  return {
    due() {
      if (now() - lastRunMs < SWEEP_EVERY_MS) return;
      lastRunMs = now();
      recordInterruptedCalls(deps).catch((error: unknown) =>
        deps.logger.warn('sweeping interrupted reasoning calls failed', { error: (error as Error).message }),
      );
    },
  };
}
