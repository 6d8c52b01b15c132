import { z } from 'zod';

/**
 * A connector's rating by one installation: an organization rates a connector it has installed and verified
 * (active), once per installation; rating again replaces it under the same id. Stored by db/ratings.ts
 * (connector_ratings); the view and the row come from this schema.
 */
export const Rating = z.object({
  rating_id: z.string().meta({ description: 'rat_…' }),
  installation_id: z.string(),
  organization_id: z.string(),
  connector_id: z.string(),
  rating: z.number().int().min(1).max(5),
  review_text: z.string().max(2000).optional(),
  user_id: z.string().meta({ description: 'The rater: their Passport, or the credential’s subject' }),
  display_name: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Rating = z.infer<typeof Rating>;
