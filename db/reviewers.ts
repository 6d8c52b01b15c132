import type { Knex } from 'knex';
import type { Reviewer } from '../domain/reviewer-assignment';
import { paginate, type Page, type PageRequest } from './pagination';

interface ReviewerRow extends Reviewer {
  created_at: Date;
  updated_at: Date;
}

/** Available reviewers holding every named capability (weights are checked by the domain). */
export async function findAvailableReviewersWithCapabilities(db: Knex, capabilityIds: string[]): Promise<Reviewer[]> {
  const query = db<ReviewerRow>('reviewers').select('did', 'display_name', 'capabilities', 'chain_level', 'available').where({ available: true });
  if (capabilityIds.length > 0) query.whereRaw('capabilities \\?& ?::text[]', [capabilityIds]);
  return query.orderBy([{ column: 'chain_level' }, { column: 'did' }]);
}

export async function upsertReviewer(db: Knex, reviewer: Reviewer): Promise<void> {
  await db('reviewers')
    .insert({ ...reviewer, capabilities: JSON.stringify(reviewer.capabilities) })
    .onConflict('did')
    .merge({
      display_name: reviewer.display_name,
      capabilities: JSON.stringify(reviewer.capabilities),
      chain_level: reviewer.chain_level,
      available: reviewer.available,
      updated_at: db.fn.now(),
    });
}

export async function listReviewers(db: Knex, page: PageRequest, filter: { available?: boolean | undefined; capability?: string | undefined }): Promise<Page<ReviewerRow>> {
  const query = db<ReviewerRow>('reviewers').select('did', 'display_name', 'capabilities', 'chain_level', 'available', 'created_at', 'updated_at');
  if (filter.available !== undefined) query.where({ available: filter.available });
  if (filter.capability) query.whereRaw('capabilities \\? ?', [filter.capability]);
  return paginate<ReviewerRow>(query, page);
}

export async function insertReviewersIfAbsent(db: Knex, reviewers: Reviewer[]): Promise<void> {
  if (reviewers.length === 0) return;
  await db('reviewers')
    .insert(reviewers.map((r) => ({ ...r, capabilities: JSON.stringify(r.capabilities) })))
    .onConflict('did')
    .ignore();
}
