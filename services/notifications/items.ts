import type { Knex } from 'knex';
import { approvalFromRow, findApprovalById } from '../../db/approvals';
import { reviewerDidsOfPassport } from '../../db/reviewers';
import { findRoutingById, routingStateOf } from '../../db/routings';
import type { LinkedItem, LinkItemKind } from '../../domain/notifications/links';
import { resolutionRefusal } from '../../domain/routing/escalation';
import type { RiskLevel } from '../../domain/routing/risk';

/** What a notification and a link's page show of an item, and whether the link's person may still answer it. */
export interface DecisionItem extends LinkedItem {
  kind: LinkItemKind;
  id: string;
  /** What is asked, in one line. */
  summary: string;
  agent_id?: string | undefined;
  expires_at?: string | undefined;
  details: Array<[string, string]>;
}

/** The person a link acts as: their Passport, their DID, and the reviewer DIDs linked to the Passport. */
export interface LinkPerson {
  passport_id: string;
  did: string;
}

/** The item as it stands now, read in the link's organization; undefined when there is none. */
export async function readDecisionItem(
  db: Knex,
  organizationId: string,
  item: { kind: LinkItemKind; id: string },
  person: LinkPerson,
): Promise<DecisionItem | undefined> {
  if (item.kind === 'approval') return readApproval(db, organizationId, item.id, person);
  return readRouting(db, organizationId, item.id, person);
}

async function readApproval(
  db: Knex,
  organizationId: string,
  approvalId: string,
  person: LinkPerson,
): Promise<DecisionItem | undefined> {
  const row = await findApprovalById(db, organizationId, approvalId);
  if (!row) return undefined;
  const approval = approvalFromRow(row);
  const approver = approval.approver_passport_id;
  return {
    kind: 'approval',
    id: approvalId,
    summary: approval.action_description,
    agent_id: approval.agent_id,
    expires_at: approval.expires_at,
    risk_level: approval.risk_level,
    open: approval.status === 'pending' && Date.parse(approval.expires_at) > Date.now(),
    answerable_by_person: !approver || approver === person.passport_id || approver === person.did,
    details: [
      ['Request', approval.action_description],
      ['Risk', approval.risk_level],
      ...approval.risk_factors.map((factor): [string, string] => [
        'Risk factor',
        `${factor.factor} (${factor.severity})`,
      ]),
      ['Agent', approval.agent_id ?? 'not named'],
      ['Parameters', JSON.stringify(approval.request_data, null, 2)],
      ['Answer by', approval.expires_at],
    ],
  };
}

async function readRouting(
  db: Knex,
  organizationId: string,
  routingId: string,
  person: LinkPerson,
): Promise<DecisionItem | undefined> {
  const row = await findRoutingById(db, organizationId, routingId);
  if (!row) return undefined;
  const routing = routingStateOf(row);
  const identities = [person.did, ...(await reviewerDidsOfPassport(db, organizationId, person.passport_id))];
  const refusals = identities.map((did) => resolutionRefusal(routing, did));
  const risk: RiskLevel = routing.risk_level ?? 'medium';
  return {
    kind: 'routing',
    id: routingId,
    summary: `A ${routing.task_type} task of agent ${routing.ai_agent_id} needs your review`,
    agent_id: routing.ai_agent_id,
    risk_level: risk,
    open: routing.status === 'in_progress' && routing.assigned_to?.type === 'human',
    answerable_by_person: refusals.some((refused) => refused === undefined),
    details: [
      ['Task', routing.task_type],
      ['Agent', routing.ai_agent_id],
      ['Agent confidence', routing.ai_confidence.toFixed(2)],
      ['Risk', risk],
      ['Why a human', routing.reason ?? 'not given'],
      ['Escalation level', routing.escalation_level],
    ],
  };
}
