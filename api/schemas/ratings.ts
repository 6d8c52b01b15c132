import { Rating } from '../../contracts/aggregates/rating';
import { z } from './zod';

/** The spec's Rating: the rater as user {user_id, display_name}. */
export const RatingSchema = z
  .object({
    rating_id: Rating.shape.rating_id,
    installation_id: Rating.shape.installation_id,
    rating: Rating.shape.rating,
    review_text: z.string().nullable(),
    user: z.object({ user_id: z.string(), display_name: z.string() }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ConnectorRating');

export function ratingView(rating: Rating): z.output<typeof RatingSchema> {
  return {
    rating_id: rating.rating_id,
    installation_id: rating.installation_id,
    rating: rating.rating,
    review_text: rating.review_text ?? null,
    user: { user_id: rating.user_id, display_name: rating.display_name },
    created_at: rating.created_at,
    updated_at: rating.updated_at,
  };
}

export const RateConnectorSchema = z
  .strictObject({
    rating: z.number().int().min(1).max(5),
    review_text: z.string().max(2000).optional(),
    installation_id: z
      .string()
      .min(1)
      .max(100)
      .openapi({ description: 'An active installation of the connector in your organization' }),
  })
  .openapi('RateConnectorRequest');

export const RatingSummarySchema = z
  .object({
    average: z.number().nullable().openapi({ description: 'Null until the connector is rated' }),
    count: z.number().int(),
    distribution: z.object({
      '1': z.number().int(),
      '2': z.number().int(),
      '3': z.number().int(),
      '4': z.number().int(),
      '5': z.number().int(),
    }),
  })
  .openapi('ConnectorRatingSummary');

export const RatingPageSchema = z
  .object({
    data: z.array(RatingSchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    total_count: z.number().int(),
    summary: RatingSummarySchema,
  })
  .openapi('ConnectorRatingPage');

export const ListRatingsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).optional(),
});
