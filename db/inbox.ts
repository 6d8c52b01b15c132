import type { Knex } from 'knex';
import type { ApprovalRow } from './approvals';
import type { RoutingRow } from './routings';

/** The most items of each kind one read of a person's queue returns, most urgent first. */
export const INBOX_KIND_LIMIT = 200;

/** Routings a human holds whose open assignment is one of these reviewer DIDs (on the partial index of open assignments). */
export async function routingsAssignedTo(db: Knex, organizationId: string, dids: string[]): Promise<RoutingRow[]> {
  if (dids.length === 0) return [];
  const rows = await db('routings as r')
    .join('reviewer_assignments as a', 'a.routing_id', 'r.routing_id')
    .where('a.organization_id', organizationId)
    .whereIn('a.reviewer_did', dids)
    .whereNull('a.released_at')
    .where('r.organization_id', organizationId)
    .where('r.status', 'in_progress')
    .select<RoutingRow[]>('r.*')
    .orderBy([{ column: 'r.escalated_at' }, { column: 'r.routing_id' }])
    .limit(INBOX_KIND_LIMIT);
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.routing_id) && seen.add(row.routing_id));
}

/** Pending approval requests before their deadline addressed to one of these identities (a DID or a Passport id). */
export async function approvalsAddressedTo(
  db: Knex,
  organizationId: string,
  identities: string[],
): Promise<ApprovalRow[]> {
  return db<ApprovalRow>('approvals')
    .where({ organization_id: organizationId, status: 'pending' })
    .where((named) =>
      named
        .whereIn('approver_passport_id', identities)
        .orWhereRaw('jsonb_exists_any(approvers, ?::text[])', [identities]),
    )
    .where('expires_at', '>', db.fn.now())
    .orderBy([{ column: 'expires_at' }, { column: 'approval_id' }])
    .limit(INBOX_KIND_LIMIT);
}

/**
 * The escalation queue's pending requests anyone may answer (addressed to no approver), but for those the
 * person asked for themself: separation of duties keeps them out of their own queue.
 */
export async function openEscalationsFor(
  db: Knex,
  organizationId: string,
  person: { identities: string[]; principal_id: string },
): Promise<ApprovalRow[]> {
  return (
    db<ApprovalRow>('approvals')
      .where({ organization_id: organizationId, status: 'pending' })
      .whereNull('approver_passport_id')
      // A quorum request names its approvers: it is theirs, not the escalation queue's.
      .whereNull('approvers')
      .whereNotIn('requester_passport_id', person.identities)
      .whereNot('requested_by', person.principal_id)
      .where('expires_at', '>', db.fn.now())
      .orderBy([{ column: 'expires_at' }, { column: 'approval_id' }])
      .limit(INBOX_KIND_LIMIT)
  );
}

/** Display names of the organization's reviewers among these DIDs. */
export async function reviewerNames(db: Knex, organizationId: string, dids: string[]): Promise<Map<string, string>> {
  if (dids.length === 0) return new Map();
  const rows: Array<{ did: string; display_name: string }> = await db('reviewers')
    .where({ organization_id: organizationId })
    .whereIn('did', dids)
    .select('did', 'display_name');
  return new Map(rows.map((row) => [row.did, row.display_name]));
}

/** The organization's Passport with this DID, if any. */
export async function passportIdOfDid(db: Knex, organizationId: string, did: string): Promise<string | undefined> {
  const row: { passport_id: string } | undefined = await db('passports')
    .where({ organization_id: organizationId, did })
    .first('passport_id');
  return row?.passport_id;
}
