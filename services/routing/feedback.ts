import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { findRoutingById } from '../../db/routings';
import { humanActorOf, humanProvenanceActor, type HumanActRefusal } from '../../domain/identity/human-acts';
import type { LedgerAnchor } from '../../domain/provenance/records';
import type { Principal } from '../identity/scopes';

export const FEEDBACK_VERDICTS = ['confirmed', 'overturned', 'flagged'] as const;
export type FeedbackVerdict = (typeof FEEDBACK_VERDICTS)[number];

export interface Feedback {
  feedback_id: string;
  routing_id: string;
  verdict: FeedbackVerdict;
  reason: string;
  submitted_by: string;
  created_at: string;
  ledger_anchor: LedgerAnchor;
}

/**
 * Records what became of a routing's outcome after the fact: confirmed, overturned (it was wrong) or
 * flagged (it needs a look), by a signed-in person as themself. Agent performance counts an overturned or
 * flagged autonomous decision as a false negative. The feedback row and its provenance record are written
 * in one transaction.
 */
export async function recordFeedback(
  db: Knex,
  request: Pick<Feedback, 'routing_id' | 'verdict' | 'reason'> & { submitted_by?: string | undefined },
  principal: Principal,
): Promise<
  | { ok: true; feedback: Feedback }
  | { ok: false; code: 'routing_not_found' | 'routing_not_completed'; status?: string }
  | HumanActRefusal
> {
  const acting = humanActorOf(principal, 'routing_feedback', request.submitted_by);
  if (!acting.ok) return acting;
  const input = { ...request, submitted_by: request.submitted_by ?? acting.actor.did };
  const routing = await findRoutingById(db, principal.organization_id, input.routing_id);
  if (!routing) return { ok: false, code: 'routing_not_found' };
  if (routing.status !== 'completed') return { ok: false, code: 'routing_not_completed', status: routing.status };
  const feedback_id = `fb_${randomUUID()}`;
  const created_at = new Date().toISOString();
  const ledger_anchor = await db.transaction(async (trx) => {
    await trx('routing_feedback').insert({
      feedback_id,
      ...input,
      principal: principal.id,
      organization_id: principal.organization_id,
      created_at,
    });
    return appendProvenance(trx, {
      entry: {
        subject_id: input.routing_id,
        step_id: `feedback:${feedback_id}`,
        timestamp: created_at,
        actor: { ...humanProvenanceActor(acting.actor), instance_id: principal.id },
        action: 'outcome_feedback',
        input_data: { verdict: input.verdict, reason: input.reason },
        output_data: { decision: routing.decision ?? null, resolution_outcome: routing.resolution?.outcome ?? null },
        reasoning: `${input.submitted_by} ${input.verdict} the outcome: ${input.reason}`,
      },
      organization_id: principal.organization_id,
    });
  });
  return { ok: true, feedback: { feedback_id, ...input, created_at, ledger_anchor } };
}
