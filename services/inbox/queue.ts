import type { Knex } from 'knex';
import type { HumanEscalationLevel } from '../../contracts/route-task';
import { approvalFromRow } from '../../db/approvals';
import { approvalsAddressedTo, openEscalationsFor, reviewerNames, routingsAssignedTo } from '../../db/inbox';
import { listProvenanceForSubject } from '../../db/ledger';
import { reviewerDidsOfPassport } from '../../db/reviewers';
import { routingStateOf } from '../../db/routings';
import { byUrgency } from '../../domain/inbox/urgency';
import type { HumanActor } from '../../domain/identity/human-acts';
import { approvalItem, routingItem, type InboxItem } from './items';

export interface InboxDeps {
  db: Knex;
  /** The deployment's seconds per escalation level: when a routing moves on from the person holding it. */
  escalationTimeoutsSeconds: Record<HumanEscalationLevel, number>;
}

/** The signed-in person whose inbox it is: their credential's principal, organization and Passport. */
export interface InboxPerson {
  principal_id: string;
  organization_id: string;
  actor: HumanActor;
}

/** Who the person is: their DID, their Passport id (as older requests name approvers) and the reviewers linked to them. */
async function identitiesOf(db: Knex, person: InboxPerson): Promise<{ reviewerDids: string[]; all: string[] }> {
  const aliases = await reviewerDidsOfPassport(db, person.organization_id, person.actor.passport_id);
  const reviewerDids = [person.actor.did, ...aliases];
  return { reviewerDids, all: [...reviewerDids, person.actor.passport_id] };
}

/**
 * The person's queue, most urgent first: routings whose open assignment is theirs (escalated to them), pending
 * requests addressed to them (a quorum request naming them until they have voted), and the escalation queue's
 * requests addressed to nobody that they did not ask for.
 * Nobody else's: an item of the organization that is not theirs is not in it.
 */
export async function listInbox(deps: InboxDeps, person: InboxPerson, nowMs = Date.now()): Promise<InboxItem[]> {
  const { db } = deps;
  const org = person.organization_id;
  const identities = await identitiesOf(db, person);
  const [routings, addressed, escalations] = await Promise.all([
    routingsAssignedTo(db, org, identities.reviewerDids),
    approvalsAddressedTo(db, org, identities.all),
    openEscalationsFor(db, org, { identities: identities.all, principal_id: person.principal_id }),
  ]);
  const chainDids = [
    ...new Set(
      routings.flatMap((row) =>
        row.escalation_chain.flatMap((entry) => (entry.covering_for ? [entry.did, entry.covering_for] : [entry.did])),
      ),
    ),
  ];
  const names = await reviewerNames(db, org, chainDids);
  const facts = { names, timeoutsSeconds: deps.escalationTimeoutsSeconds, nowMs };
  return [
    ...routings.map((row) => routingItem(routingStateOf(row), row.task, facts)),
    ...addressed
      .map(approvalFromRow)
      // A quorum request the person has voted on waits for the others, not for them.
      .filter((approval) => !(approval.votes ?? []).some((vote) => vote.passport_id === person.actor.passport_id))
      .map((approval) => approvalItem(approval, 'approval', nowMs)),
    ...escalations.map((row) => approvalItem(approvalFromRow(row), 'escalation', nowMs)),
  ].sort(byUrgency);
}

export interface ProvenanceStep {
  step_id: string;
  action: string;
  actor: string;
  timestamp: string;
  reasoning: string;
  transaction_id: string;
}

/** One item of the person's queue with its provenance so far; undefined when it is not (or no longer) theirs. */
export async function findInboxItem(
  deps: InboxDeps,
  person: InboxPerson,
  itemId: string,
): Promise<(InboxItem & { provenance: ProvenanceStep[] }) | undefined> {
  const item = (await listInbox(deps, person)).find((candidate) => candidate.item_id === itemId);
  if (!item) return undefined;
  const records = await listProvenanceForSubject(deps.db, itemId, person.organization_id);
  const provenance = records.map(({ entry, anchor }) => ({
    step_id: entry.step_id,
    action: entry.action,
    actor: entry.actor.did ?? entry.actor.agent_id ?? entry.actor.type,
    timestamp: entry.timestamp,
    reasoning: entry.reasoning,
    transaction_id: anchor.transaction_id,
  }));
  return { ...item, provenance };
}
