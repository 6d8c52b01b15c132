import type { Knex } from 'knex';
import type { Cover } from '../contracts/aggregates/cover';
import type { ApprovalCover } from '../domain/approvals/covers';
import { paginate, type Page, type PageRequest } from './pagination';

/** The covers table's row: instants as Date, unset fields null. */
export interface CoverRow {
  cover_id: string;
  organization_id: string;
  covered_did: string;
  covering_did: string;
  starts_at: Date;
  ends_at: Date;
  capabilities: string[] | null;
  reason: string | null;
  created_by: string;
  created_at: Date;
  ended_at: Date | null;
}

export function coverFromRow(row: CoverRow): Cover {
  return {
    cover_id: row.cover_id,
    organization_id: row.organization_id,
    covered_did: row.covered_did,
    covering_did: row.covering_did,
    starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at.toISOString(),
    ...(row.capabilities !== null ? { capabilities: row.capabilities } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    ...(row.ended_at ? { ended_at: row.ended_at.toISOString() } : {}),
  };
}

/** Stores a cover once: a retry with the same id (the same Idempotency-Key) finds the first one. */
export async function insertCover(db: Knex, cover: Cover): Promise<CoverRow> {
  await db<CoverRow>('covers')
    .insert({
      ...cover,
      capabilities: cover.capabilities ? JSON.stringify(cover.capabilities) : null,
      reason: cover.reason ?? null,
    } as never)
    .onConflict('cover_id')
    .ignore();
  const stored = await findCover(db, cover.organization_id, cover.cover_id);
  if (!stored) throw new Error(`Cover ${cover.cover_id} was stored but has no row in its organization`);
  return stored;
}

export async function findCover(db: Knex, organizationId: string, coverId: string): Promise<CoverRow | undefined> {
  return db<CoverRow>('covers').where({ organization_id: organizationId, cover_id: coverId }).first();
}

/** Ends a cover now, once: a cover ended already, or one whose window is over, is left as it is. */
export async function endCover(db: Knex, organizationId: string, coverId: string, at: Date): Promise<boolean> {
  const ended = await db('covers')
    .where({ organization_id: organizationId, cover_id: coverId })
    .whereNull('ended_at')
    .where('ends_at', '>', at)
    .update({ ended_at: at });
  return ended === 1;
}

/** An organization's covers, or only those a person gives or takes. */
export function listCovers(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filter: { party?: string | undefined; active_at?: Date | undefined },
): Promise<Page<CoverRow>> {
  const query = db<CoverRow>('covers').select('*').where({ organization_id: organizationId });
  if (filter.party) {
    const party = filter.party;
    query.where((parties) => parties.where({ covered_did: party }).orWhere({ covering_did: party }));
  }
  if (filter.active_at) inForceAt(query, filter.active_at);
  return paginate<CoverRow>(query, page);
}

function inForceAt(query: Knex.QueryBuilder, at: Date): void {
  query.where('starts_at', '<=', at).where('ends_at', '>', at).whereNull('ended_at');
}

/** The table of covers: its changes are notified like the credential tables' (lib/notified-cache.ts). */
export const COVERS_TABLE = 'covers';

/**
 * The covers of these people that hand on their approvals (a cover limited to capabilities hands on routings
 * only) and have neither ended nor run out: which are in force at an instant is domain/approvals/covers.ts's to say,
 * so that what this reads may be held until the table changes.
 */
export async function approvalCoversAhead(
  db: Knex,
  organizationId: string,
  covered: readonly string[],
): Promise<ApprovalCover[]> {
  if (covered.length === 0) return [];
  const rows = await db<CoverRow>('covers')
    .select('covered_did', 'covering_did', 'starts_at', 'ends_at', 'created_at')
    .where({ organization_id: organizationId })
    .whereIn('covered_did', covered)
    .whereNull('capabilities')
    .whereNull('ended_at')
    .where('ends_at', '>', db.fn.now());
  return rows.map((row) => ({
    covered: row.covered_did,
    covering: row.covering_did,
    starts_at: row.starts_at.getTime(),
    ends_at: row.ends_at.getTime(),
    created_at: row.created_at.getTime(),
  }));
}
