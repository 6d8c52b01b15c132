import type { Knex } from 'knex';
import { Rating } from '../contracts/aggregates/rating';
import { rowOf } from '../lib/shape';
import { paginate, type Page, type PageRequest } from './pagination';

export type RatingRow = Omit<Rating, 'review_text' | 'created_at' | 'updated_at'> & {
  review_text: string | null;
  created_at: Date;
  updated_at: Date;
};

const ratingRow = rowOf(Rating).of;

export function ratingFromRow(row: RatingRow): Rating {
  return {
    ...row,
    review_text: row.review_text ?? undefined,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** One rating per installation: a second replaces the first's stars, text and rater, keeping its id and creation. */
export async function upsertRating(db: Knex, rating: Rating): Promise<{ row: RatingRow; created: boolean }> {
  const [row] = await db('connector_ratings')
    .insert(ratingRow(rating))
    .onConflict('installation_id')
    .merge(['rating', 'review_text', 'user_id', 'display_name', 'updated_at'])
    .returning<(RatingRow & { inserted: boolean })[]>([...Object.keys(Rating.shape), db.raw('(xmax = 0) as inserted')]);
  const { inserted, ...stored } = row!;
  return { row: stored, created: inserted };
}

export function listRatings(db: Knex, connectorId: string, page: PageRequest): Promise<Page<RatingRow>> {
  return paginate<RatingRow>(db<RatingRow>('connector_ratings').select('*').where({ connector_id: connectorId }), page);
}

/** How many ratings of each star the connector has. */
export async function ratingCounts(db: Knex, connectorId: string): Promise<Map<number, number>> {
  const rows = await db('connector_ratings')
    .select('rating')
    .count<{ rating: number; count: string }[]>({ count: '*' })
    .where({ connector_id: connectorId })
    .groupBy('rating');
  return new Map(rows.map((row) => [row.rating, Number(row.count)]));
}
