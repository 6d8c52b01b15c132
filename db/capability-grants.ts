import type { Knex } from 'knex';
import { CapabilityGrant } from '../contracts/aggregates/capability';
import type { Candidate, HeldGrant, SubjectKind } from '../domain/capabilities/matcher';
import { rowOf } from '../lib/shape';
import { aggregateOf } from './capabilities';
import { paginate, type Page, type PageRequest } from './pagination';
import { preparedRows } from './prepared';

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

/** For each required name, the capabilities whose holders satisfy it, each with its chain down to it. */
export type Satisfiers = Map<string, Map<string, string[]>>;

/**
 * The matcher's one statement. `satisfying`: each required name, and every capability implying it with the
 * chain between them (capability_implications, the organization's closure). The candidates: everyone holding
 * a live grant of one of those, with those grants, their availability and load: a person who is a reviewer is
 * available as the reviewer row says (an absent reviewer is unavailable), with their open assignments and
 * capacity; a registered platform agent (platform_agents.passport_id is its DID) is available while one of
 * its registered versions is active, its load their queued and processing executions; others are available
 * with no load. Reviewers and agents are looked up per candidate (a lateral probe of their keys): joined, the planner hashed every reviewer of the organization for a few dozen
 * candidates (EXPLAIN at bench size: a sequential scan of 1,000 reviewers, 0.33 ms of 0.49).
 */
const SATISFYING = `
    select need.name as required, need.name as held, array[need.name] as via from unnest(:names::text[]) need(name)
    union all
    select c.implied_name, c.capability_name, c.via from capability_implications c
     where c.organization_id = :org and c.implied_name = any(:names::text[])`;

const CANDIDATES = `with satisfying as materialized (${SATISFYING}
  ), held as (
    select g.subject_type, g.subject_did,
           jsonb_agg(jsonb_build_object('grant_id', g.grant_id, 'capability', g.capability_name,
                                        'weight', g.weight, 'expires_at', g.expires_at)) as grants
      from capability_grants g
     where g.organization_id = :org and g.capability_name = any(array(select s.held from satisfying s))
       and g.revoked_at is null and (g.expires_at is null or g.expires_at > :at)
     group by g.subject_type, g.subject_did
  )
  select (select json_agg(s) from satisfying s) as satisfying,
         (select json_agg(candidate) from (
            select held.*, coalesce(r.available, a.status_active, true) as available, r.capacity,
                   coalesce(r.open_assignments, a.open_assignments, 0)::int as open_assignments
              from held
              left join lateral (
                select r.available, r.capacity,
                       (select count(*) from reviewer_assignments ra
                         where ra.organization_id = :org and ra.reviewer_did = r.did and ra.released_at is null) as open_assignments
                  from reviewers r
                 where held.subject_type = 'person' and r.organization_id = :org and r.did = held.subject_did
                 limit 1) r on true
              left join lateral (
                select bool_or(a.status = 'active') as status_active,
                       sum((select count(*) from executions e
                             where e.organization_id = :org and e.agent_id = a.agent_id
                               and e.status in ('queued', 'processing'))) as open_assignments
                  from platform_agents a
                 where held.subject_type = 'agent' and a.organization_id = :org and a.passport_id = held.subject_did
                having count(*) > 0) a on true) candidate) as candidates`;

/** What satisfies each of `names` (implications followed), and everyone holding a live grant of it: one round trip. */
export async function candidatesSatisfying(
  db: Knex,
  organizationId: string,
  names: readonly string[],
  at: string,
): Promise<{ satisfiers: Satisfiers; candidates: Candidate[] }> {
  const [row] = await preparedRows<{ satisfying: SatisfyingRow[] | null; candidates: CandidateRow[] | null }>(
    db,
    CANDIDATES,
    { org: organizationId, names: [...names], at },
  );
  const candidates = (row?.candidates ?? []).map((candidate) => ({
    kind: candidate.subject_type,
    did: candidate.subject_did,
    available: candidate.available,
    open_assignments: candidate.open_assignments,
    capacity: candidate.capacity,
    grants: heldGrants(candidate.grants),
  }));
  return { satisfiers: satisfiersFrom(row?.satisfying), candidates };
}

type SatisfyingRow = { required: string; held: string; via: string[] };

function satisfiersFrom(rows: readonly SatisfyingRow[] | null | undefined): Satisfiers {
  const satisfiers: Satisfiers = new Map();
  for (const { required, held, via } of rows ?? []) {
    const chains = satisfiers.get(required) ?? new Map<string, string[]>();
    if (!chains.has(held)) chains.set(held, via);
    satisfiers.set(required, chains);
  }
  return satisfiers;
}

const heldGrants = (grants: CandidateRow['grants']): HeldGrant[] =>
  grants.map((grant) => ({
    ...grant,
    expires_at: grant.expires_at === null ? null : Date.parse(grant.expires_at),
    revoked: false,
  }));

/**
 * One platform agent's live grants satisfying `:names`, with the satisfiers as CANDIDATES reads them. The
 * agent's `passport_id` names its Passport (whose DID the grants name), or is itself the agent's DID, as the
 * registration API takes it.
 */
const AGENT_GRANTS = `with satisfying as materialized (${SATISFYING})
  select (select json_agg(s) from satisfying s) as satisfying,
         (select coalesce(json_agg(json_build_object('grant_id', g.grant_id, 'capability', g.capability_name,
                                                     'weight', g.weight, 'expires_at', g.expires_at)), '[]')
            from capability_grants g
           where g.organization_id = :org and g.subject_type = 'agent'
             and g.subject_did = :did
             and g.capability_name = any(array(select s.held from satisfying s))
             and g.revoked_at is null and (g.expires_at is null or g.expires_at > :at)) as grants`;

/**
 * What satisfies each of `names` (implications followed) and which of those the agent of `agentDid` holds by
 * a live grant: the matcher's input for one candidate, as `/v1/agents/call` asks about the agent it names.
 */
export async function agentGrantsSatisfying(
  db: Knex,
  organizationId: string,
  agentDid: string,
  names: readonly string[],
  at: string,
): Promise<{ satisfiers: Satisfiers; grants: HeldGrant[] }> {
  const [row] = await preparedRows<{ satisfying: SatisfyingRow[] | null; grants: CandidateRow['grants'] }>(
    db,
    AGENT_GRANTS,
    { org: organizationId, did: agentDid, names: [...names], at },
  );
  return { satisfiers: satisfiersFrom(row?.satisfying), grants: heldGrants(row?.grants ?? []) };
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
