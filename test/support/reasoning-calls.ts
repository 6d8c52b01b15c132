import type { Knex } from 'knex';
import type { ReasoningCallRow } from '../../db/reasoning-calls';
import { eventually } from './eventually';

/**
 * /v1/reason answers once the call's open row is committed and completes the call on record while the answer
 * is sent (services/reasoning/calls.ts): a test that reads the record waits for the completion.
 */
export async function recordedCall(db: Knex, callId: string): Promise<ReasoningCallRow> {
  return (await eventually(
    () => db<ReasoningCallRow>('reasoning_calls').where({ call_id: callId }).first(),
    (row) => row !== undefined && row.state !== 'open',
  ))!;
}

/** Every call answered so far is completed on record (statistics count only completed calls). */
export async function callsRecorded(db: Knex): Promise<void> {
  await eventually(
    async () =>
      (await db('reasoning_calls').where({ state: 'open' }).count<{ count: string }[]>('* as count'))[0]!.count,
    (open) => Number(open) === 0,
  );
}
