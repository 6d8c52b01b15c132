import type { Knex } from 'knex';
import type { LoadedReviewer, Reviewer, ReviewerCover } from '../domain/routing/reviewer-assignment';
import { paginate, type Page, type PageRequest } from './pagination';
import { preparedRows } from './prepared';

interface ReviewerRow extends LoadedReviewer {
  passport_id: string | null;
  email: string | null;
  slack_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Each reviewer's open assignments, counted on the partial index for the reviewers the query returns only; by
 * organization and DID, since a reviewer DID is unique within its organization only.
 */
const OPEN_ASSIGNMENTS =
  '(select count(*) from reviewer_assignments a where a.organization_id = reviewers.organization_id and a.reviewer_did = reviewers.did and a.released_at is null)::int as open_assignments';

function withLoad(db: Knex, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.select(db.raw(OPEN_ASSIGNMENTS));
}

/**
 * A reviewer's capabilities are derived from their live grants (capability_grants, the one source): a write
 * of a reviewer's capabilities becomes grants by trigger, and an expiry or a revocation is seen at the next
 * read (routing reads only the credits it needs: AVAILABLE_REVIEWERS_WITH_LOAD). The expression is the
 * body of the reviewer_capabilities function of migration 20261130003100, written inline: called as a
 * function it cost ~0.3 ms a reviewer in executor set-up (EXPLAIN of routing's load: 2.2–6.3 ms for 8
 * reviewers, 0.15–0.23 ms inline, same rows), and inline it is an
 * index-only scan of capability_grants_subject_live.
 */
const HELD = `(select coalesce(jsonb_object_agg(strongest.name, strongest.weight), '{}'::jsonb)
    from (select g.capability_name as name, max(g.weight) as weight from capability_grants g
           where g.organization_id = reviewers.organization_id and g.subject_did = reviewers.did
             and g.subject_type = 'person' and g.revoked_at is null and (g.expires_at is null or g.expires_at > now())
           group by g.capability_name) strongest)`;

const COLUMNS = [
  'reviewers.did',
  'reviewers.display_name',
  `${HELD} as capabilities`,
  'reviewers.chain_level',
  'reviewers.available',
  'reviewers.capacity',
];

const columns = (db: Knex) => COLUMNS.map((column) => (column.startsWith(HELD) ? db.raw(column) : column));

/**
 * The covers in force now for a reviewer (their DID, or the DID of the Passport linked to them), newest first,
 * each with its colleague as an available reviewer of the organization (the reviewer of that DID, else one
 * linked to the Passport of that DID); null when none. At the statement's time, so at the assignment's moment.
 */
const COVERS = `(select jsonb_agg(jsonb_build_object('covering_did', coverer.did, 'capabilities', c.capabilities)
             order by c.created_at desc, c.cover_id)
    from covers c
    cross join lateral (
      select r.did from reviewers r
       where r.organization_id = c.organization_id and r.available and r.did <> reviewers.did
         and (r.did = c.covering_did or r.passport_id =
               (select p.passport_id from passports p where p.organization_id = c.organization_id and p.did = c.covering_did))
       order by (r.did = c.covering_did) desc, r.chain_level, r.did limit 1) coverer
   where c.organization_id = reviewers.organization_id
     and c.covered_did in (reviewers.did, (select p.did from passports p
                                            where p.passport_id = reviewers.passport_id and p.organization_id = reviewers.organization_id))
     and c.starts_at <= now() and c.ends_at > now() and c.ended_at is null) as covers`;

/** A loaded reviewer without covers carries no covers key (the rows are the decision's input as they are). */
export function withCovers(
  rows: ReadonlyArray<LoadedReviewer & { covers?: ReviewerCover[] | null }>,
): LoadedReviewer[] {
  return rows.map(({ covers, ...reviewer }) => (covers ? { ...reviewer, covers } : reviewer));
}

/**
 * Available reviewers of `:org` holding every capability of `:capabilities` (any, when it is empty; names
 * lower-cased as grants key them), with their load: a query for raw SQL with those named bindings, so a
 * larger statement can embed it. Implications are followed by expanding the requirements, not the reviewers:
 * each capability of `:required` (`:capabilities` and those relaxed after a wait, which a reviewer may lack)
 * is satisfied by itself or by any capability implying it (capability_implications, the organization's own
 * closure), and a reviewer is credited with it at their strongest live grant of one of those. `capabilities`
 * holds those credits only: what the domain matcher needs, read on the live-grants index for the few
 * satisfying names (no aggregation of every grant of every candidate, EXPLAIN in the commit).
 */
export const AVAILABLE_REVIEWERS_WITH_LOAD = `select * from (
  with satisfying as materialized (
    select need.name as required, need.name as held from unnest(:required::text[]) need(name)
    union
    select c.implied_name, c.capability_name from capability_implications c
     where c.organization_id = :org and c.implied_name = any(:required::text[])
  ), credited as materialized (
    select g.subject_did, s.required, max(g.weight) as weight
      from satisfying s
      join capability_grants g on g.organization_id = :org and g.capability_name = s.held
     where g.revoked_at is null and g.subject_type = 'person' and (g.expires_at is null or g.expires_at > now())
     group by g.subject_did, s.required
  )
  select reviewers.did, reviewers.display_name,
         coalesce((select jsonb_object_agg(c.required, c.weight) from credited c where c.subject_did = reviewers.did),
                  '{}'::jsonb) as capabilities,
         reviewers.chain_level, reviewers.available, reviewers.capacity, ${OPEN_ASSIGNMENTS}, ${COVERS}
    from reviewers
   where reviewers.available and reviewers.organization_id = :org
     and reviewers.did = any(array(
       select c.subject_did from credited c
        where cardinality(:capabilities::text[]) > 0 and c.required = any(:capabilities::text[])
        group by c.subject_did having array_agg(c.required) @> :capabilities::text[]
       union all
       select listed.did from reviewers listed
        where cardinality(:capabilities::text[]) = 0 and listed.organization_id = :org))) held`;

/** Capability ids as grants key them. */
export const grantNames = (capabilityIds: readonly string[]) => capabilityIds.map((id) => id.toLowerCase());

/** The bindings of AVAILABLE_REVIEWERS_WITH_LOAD: the capabilities a reviewer must hold, and those also credited. */
export const reviewerBindings = (capabilityIds: readonly string[], relaxedIds: readonly string[] = []) => ({
  capabilities: grantNames(capabilityIds),
  required: grantNames([...capabilityIds, ...relaxedIds]),
});

/**
 * Available reviewers holding every named capability, directly or by implication (weights are checked by the
 * domain), with their load; `relaxedIds` are credited when held but not needed.
 */
export async function findAvailableReviewersWithCapabilities(
  db: Knex,
  organizationId: string,
  capabilityIds: readonly string[],
  relaxedIds: readonly string[] = [],
): Promise<LoadedReviewer[]> {
  return withCovers(
    await preparedRows<LoadedReviewer>(db, `${AVAILABLE_REVIEWERS_WITH_LOAD} order by held.chain_level, held.did`, {
      org: organizationId,
      ...reviewerBindings(capabilityIds, relaxedIds),
    }),
  );
}

export async function upsertReviewer(
  db: Knex,
  organizationId: string,
  reviewer: Reviewer & {
    capacity?: number | null | undefined;
    passport_id?: string | null | undefined;
    email?: string | null | undefined;
    slack_user_id?: string | null | undefined;
  },
): Promise<void> {
  const fields = {
    passport_id: reviewer.passport_id ?? null,
    email: reviewer.email ?? null,
    slack_user_id: reviewer.slack_user_id ?? null,
    display_name: reviewer.display_name,
    capabilities: JSON.stringify(reviewer.capabilities),
    chain_level: reviewer.chain_level,
    available: reviewer.available,
    capacity: reviewer.capacity ?? null,
  };
  await db('reviewers')
    .insert({ organization_id: organizationId, did: reviewer.did, ...fields })
    .onConflict(['organization_id', 'did'])
    .merge({ ...fields, updated_at: db.fn.now() });
}

export async function listReviewers(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { available?: boolean | undefined; capability?: string | undefined },
): Promise<Page<ReviewerRow>> {
  const query = withLoad(
    db,
    db('reviewers')
      .select([
        ...columns(db),
        'reviewers.passport_id',
        'reviewers.email',
        'reviewers.slack_user_id',
        'reviewers.created_at',
        'reviewers.updated_at',
      ])
      .where({ 'reviewers.organization_id': organizationId }),
  );
  if (filter.available !== undefined) query.where({ available: filter.available });
  if (filter.capability) query.whereRaw(`${HELD} \\? ?`, [filter.capability.toLowerCase()]);
  return paginate<ReviewerRow>(query, page);
}

export async function insertReviewersIfAbsent(db: Knex, organizationId: string, reviewers: Reviewer[]): Promise<void> {
  if (reviewers.length === 0) return;
  await db('reviewers')
    .insert(
      reviewers.map((r) => ({ ...r, organization_id: organizationId, capabilities: JSON.stringify(r.capabilities) })),
    )
    .onConflict(['organization_id', 'did'])
    .ignore();
}

/** One available reviewer by DID, or undefined when unknown or unavailable. */
/**
 * A reviewer's capabilities as credited for matching: each live grant's capability and everything it implies
 * (the organization's closure, read from the holder's side), each at the strongest grant crediting it.
 */
const CREDITED = `(select coalesce(jsonb_object_agg(credited.name, credited.weight), '{}'::jsonb)
    from (select held.name, max(g.weight) as weight
            from capability_grants g
           cross join lateral (
             select g.capability_name as name
             union all
             select c.implied_name from capability_implications c
              where c.organization_id = g.organization_id and c.capability_name = g.capability_name) held
           where g.organization_id = reviewers.organization_id and g.subject_did = reviewers.did
             and g.subject_type = 'person' and g.revoked_at is null and (g.expires_at is null or g.expires_at > now())
           group by held.name) credited)`;

/**
 * An available reviewer with their capabilities credited (CREDITED: implications followed), as an admin's
 * choice of reviewer is checked against a routing's needs and the queue offers a reviewer to the routings
 * waiting for what they hold (a cardiologist to those waiting for a physician).
 */
export async function findAvailableReviewer(
  db: Knex,
  organizationId: string,
  did: string,
): Promise<Reviewer | undefined> {
  const found = await db('reviewers')
    .select(['did', 'display_name', db.raw(`${CREDITED} as capabilities`), 'chain_level', 'available'])
    .where({ did, available: true })
    .where('organization_id', organizationId)
    .first<Reviewer | undefined>();
  return found;
}

/** The Passport a reviewer is: the one named, or else the one whose DID the reviewer has; undefined when named and unknown. */
export async function reviewerPassport(
  db: Knex,
  organizationId: string,
  reviewer: { did: string; passport_id?: string | undefined },
): Promise<{ passport_id: string | null } | undefined> {
  if (reviewer.passport_id !== undefined) {
    const named: { passport_id: string } | undefined = await db('passports')
      .where({ passport_id: reviewer.passport_id, organization_id: organizationId })
      .first('passport_id');
    return named;
  }
  const same: { passport_id: string } | undefined = await db('passports')
    .where({ did: reviewer.did, organization_id: organizationId })
    .first('passport_id');
  return { passport_id: same?.passport_id ?? null };
}

/** The reviewer DIDs a Passport is linked to in its organization: who that person is on escalation chains besides their own DID. */
export async function reviewerDidsOfPassport(db: Knex, organizationId: string, passportId: string): Promise<string[]> {
  const rows: Array<{ did: string }> = await db('reviewers')
    .where({ organization_id: organizationId, passport_id: passportId })
    .select('did');
  return rows.map((row) => row.did);
}

/** A reviewer of the organization with the Passport linked to it (null when none), or undefined when unknown there. */
export async function findReviewerLink(
  db: Knex,
  organizationId: string,
  did: string,
): Promise<{ passport_id: string | null } | undefined> {
  const found: { passport_id: string | null } | undefined = await db('reviewers')
    .where({ organization_id: organizationId, did })
    .first('passport_id');
  return found;
}

/** Links a reviewer that no Passport signs in as yet to this one; a reviewer linked already is left as it is. */
export async function linkUnclaimedReviewer(
  db: Knex,
  organizationId: string,
  reviewerDid: string,
  passportId: string,
): Promise<boolean> {
  const linked = await db('reviewers')
    .where({ organization_id: organizationId, did: reviewerDid })
    .whereNull('passport_id')
    .update({ passport_id: passportId });
  return linked > 0;
}
