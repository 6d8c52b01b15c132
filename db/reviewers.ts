import type { Knex } from 'knex';
import type { LoadedReviewer, Reviewer } from '../domain/reviewer-assignment';
import { paginate, type Page, type PageRequest } from './pagination';

interface ReviewerRow extends LoadedReviewer {
  passport_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Each reviewer's open assignments, counted on the partial index for the reviewers the query returns only. */
function withLoad(db: Knex, query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.select(db.raw('(select count(*) from reviewer_assignments a where a.reviewer_did = reviewers.did and a.released_at is null)::int as open_assignments'));
}

const COLUMNS = ['reviewers.did', 'reviewers.display_name', 'reviewers.capabilities', 'reviewers.chain_level', 'reviewers.available', 'reviewers.capacity'];

/** Available reviewers holding every named capability (weights are checked by the domain), with their load. */
export async function findAvailableReviewersWithCapabilities(db: Knex, organizationId: string, capabilityIds: string[]): Promise<LoadedReviewer[]> {
  const query = withLoad(db, db('reviewers').select(COLUMNS).where({ available: true, organization_id: organizationId }));
  if (capabilityIds.length > 0) query.whereRaw('capabilities \\?& ?::text[]', [capabilityIds]);
  return (await query.orderBy([{ column: 'chain_level' }, { column: 'did' }])) as LoadedReviewer[];
}

export async function upsertReviewer(db: Knex, organizationId: string, reviewer: Reviewer & { capacity?: number | null | undefined; passport_id?: string | null | undefined }): Promise<void> {
  const fields = {
    passport_id: reviewer.passport_id ?? null,
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
  const query = withLoad(db, db('reviewers').select([...COLUMNS, 'reviewers.passport_id', 'reviewers.created_at', 'reviewers.updated_at']).where({ 'reviewers.organization_id': organizationId }));
  if (filter.available !== undefined) query.where({ available: filter.available });
  if (filter.capability) query.whereRaw('capabilities \\? ?', [filter.capability]);
  return paginate<ReviewerRow>(query, page);
}

export async function insertReviewersIfAbsent(db: Knex, organizationId: string, reviewers: Reviewer[]): Promise<void> {
  if (reviewers.length === 0) return;
  await db('reviewers')
    .insert(reviewers.map((r) => ({ ...r, organization_id: organizationId, capabilities: JSON.stringify(r.capabilities) })))
    .onConflict(['organization_id', 'did'])
    .ignore();
}


/** One available reviewer by DID, or undefined when unknown or unavailable. */
export async function findAvailableReviewer(db: Knex, organizationId: string, did: string): Promise<Reviewer | undefined> {
  return db<Reviewer>('reviewers').select(['did', 'display_name', 'capabilities', 'chain_level', 'available']).where({ did, available: true }).where('organization_id', organizationId).first();
}

/** The Passport a reviewer is: the one named, or else the one whose DID the reviewer has; undefined when named and unknown. */
export async function reviewerPassport(db: Knex, organizationId: string, reviewer: { did: string; passport_id?: string | undefined }): Promise<{ passport_id: string | null } | undefined> {
  if (reviewer.passport_id !== undefined) {
    const named: { passport_id: string } | undefined = await db('passports').where({ passport_id: reviewer.passport_id, organization_id: organizationId }).first('passport_id');
    return named;
  }
  const same: { passport_id: string } | undefined = await db('passports').where({ did: reviewer.did, organization_id: organizationId }).first('passport_id');
  return { passport_id: same?.passport_id ?? null };
}

/** The reviewer DIDs a Passport is linked to: who that person is on escalation chains besides their own DID. */
export async function reviewerDidsOfPassport(db: Knex, passportId: string): Promise<string[]> {
  const rows: Array<{ did: string }> = await db('reviewers').where({ passport_id: passportId }).select('did');
  return rows.map((row) => row.did);
}
