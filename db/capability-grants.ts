import type { Knex } from 'knex';
import { CapabilityGrant } from '../contracts/aggregates/capability';
import type { Candidate, HeldGrant, SubjectKind } from '../domain/capabilities/matcher';
import { rowOf } from '../lib/shape';
import { aggregateOf } from './capabilities';
import { paginate, type Page, type PageRequest } from './pagination';

const grantRow = rowOf(CapabilityGrant).of;

export async function insertGrants(db: Knex, grants: readonly CapabilityGrant[]): Promise<void> {
  if (grants.length > 0) await db('capability_grants').insert(grants.map(grantRow));
}

export async function findGrant(
  db: Knex,
  organizationId: string,
  grantId: string,
): Promise<CapabilityGrant | undefined> {
  const row = await db('capability_grants')
    .where({ organization_id: organizationId, grant_id: grantId })
    .first<Record<string, unknown> | undefined>();
  return row && (aggregateOf(row) as unknown as CapabilityGrant);
}

export const GRANT_SORTABLE = { created_at: 'created_at', expires_at: 'expires_at', weight: 'weight' };

export async function listGrants(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filters: { subject_did?: string | undefined; capability_name?: string | undefined; live_at?: string | undefined },
): Promise<Page<CapabilityGrant>> {
  const query = db('capability_grants').select('*').where({ organization_id: organizationId });
  if (filters.subject_did) void query.andWhere({ subject_did: filters.subject_did });
  if (filters.capability_name) void query.andWhere({ capability_name: filters.capability_name });
  if (filters.live_at) void liveAt(query, filters.live_at);
  const found = await paginate<Record<string, unknown>>(query, page);
  return { ...found, data: found.data.map((row) => aggregateOf(row) as unknown as CapabilityGrant) };
}

function liveAt(query: Knex.QueryBuilder, at: string): Knex.QueryBuilder {
  return query.whereNull('revoked_at').andWhere((live) => live.whereNull('expires_at').orWhere('expires_at', '>', at));
}

/** Revokes a grant still live; false when it was already revoked. One conditional statement. */
export async function revokeGrant(
  db: Knex,
  organizationId: string,
  grantId: string,
  revocation: { by: string; reason: string | null; at: string },
): Promise<boolean> {
  const updated = await db('capability_grants')
    .where({ organization_id: organizationId, grant_id: grantId })
    .whereNull('revoked_at')
    .update({ revoked_at: revocation.at, revoked_by: revocation.by, revoke_reason: revocation.reason });
  return updated > 0;
}

/** The live grants of a subject. */
export async function liveGrantsOf(
  db: Knex,
  organizationId: string,
  subjectDid: string,
  at: string,
): Promise<CapabilityGrant[]> {
  const rows = await liveAt(
    db('capability_grants').where({ organization_id: organizationId, subject_did: subjectDid }),
    at,
  )
    .orderBy('capability_name')
    .select<Record<string, unknown>[]>('*');
  return rows.map((row) => aggregateOf(row) as unknown as CapabilityGrant);
}

interface CandidateRow {
  subject_type: SubjectKind;
  subject_did: string;
  grants: Array<Omit<HeldGrant, 'revoked' | 'expires_at'> & { expires_at: string | null }>;
  available: boolean;
  open_assignments: number;
  capacity: number | null;
}

/**
 * Everyone holding a live grant of one of `names`, with those grants, their availability and load: a person
 * who is a reviewer is available as the reviewer row says (an absent reviewer is unavailable), with their
 * open assignments and capacity; a registered platform agent is available while active, its load its queued
 * and processing executions. Others are available with no load.
 */
export async function candidatesHolding(
  db: Knex,
  organizationId: string,
  names: readonly string[],
  at: string,
): Promise<Candidate[]> {
  const { rows } = await db.raw<{ rows: CandidateRow[] }>(
    `with held as (
       select g.subject_type, g.subject_did,
              jsonb_agg(jsonb_build_object('grant_id', g.grant_id, 'capability', g.capability_name,
                                           'weight', g.weight, 'expires_at', g.expires_at)) as grants
         from capability_grants g
        where g.organization_id = :org and g.capability_name = any(:names::text[]) and g.revoked_at is null
          and (g.expires_at is null or g.expires_at > :at)
        group by g.subject_type, g.subject_did
     )
     select held.*,
            coalesce(r.available, a.status = 'active', true) as available,
            coalesce(r.capacity, null) as capacity,
            case when r.did is not null then
              (select count(*) from reviewer_assignments ra where ra.organization_id = :org and ra.reviewer_did = r.did and ra.released_at is null)
            when a.agent_id is not null then
              (select count(*) from executions e where e.organization_id = :org and e.agent_id = a.agent_id and e.status in ('queued', 'processing'))
            else 0 end::int as open_assignments
       from held
       left join reviewers r on held.subject_type = 'person' and r.organization_id = :org and r.did = held.subject_did
       left join passports p on held.subject_type = 'agent' and p.organization_id = :org and p.did = held.subject_did
       left join platform_agents a on a.passport_id = p.passport_id and a.organization_id = :org`,
    { org: organizationId, names: [...names], at },
  );
  return rows.map((row) => ({
    kind: row.subject_type,
    did: row.subject_did,
    available: row.available,
    open_assignments: row.open_assignments,
    capacity: row.capacity,
    grants: row.grants.map((grant) => ({
      ...grant,
      expires_at: grant.expires_at === null ? null : Date.parse(grant.expires_at),
      revoked: false,
    })),
  }));
}

export interface ProofRow {
  proof_id: string;
  organization_id: string;
  grant_id: string;
  agent_did: string;
  skill_id: string;
  task_id: string | null;
  kid: string;
  proof_document: string;
  submitted_by: string;
  created_at: string;
}

export async function insertProof(db: Knex, row: ProofRow): Promise<void> {
  await db('capability_proofs').insert(row);
}

export async function findProof(db: Knex, organizationId: string, proofId: string): Promise<ProofRow | undefined> {
  const row = await db('capability_proofs')
    .where({ organization_id: organizationId, proof_id: proofId })
    .first<Record<string, unknown> | undefined>();
  return row && (aggregateOf(row) as unknown as ProofRow);
}
