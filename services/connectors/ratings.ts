import type { Knex } from 'knex';
import type { Rating } from '../../contracts/aggregates/rating';
import { findConnector } from '../../db/connectors';
import { findInstallationAnywhere } from '../../db/installations';
import { findPassport } from '../../db/passports';
import { listRatings, ratingCounts, ratingFromRow, upsertRating } from '../../db/ratings';
import type { PageRequest } from '../../db/pagination';
import { ratingRefusal, ratingSummary } from '../../domain/marketplace/ratings';
import { derivedId } from '../../lib/ids';
import type { Principal } from '../identity/scopes';

export type RateOutcome =
  | { ok: true; rating: Rating; created: boolean }
  | { ok: false; code: 'connector_not_found' | 'installation_not_verified'; detail: string };

/** Who rated: the signed-in person's Passport and name, or the credential's subject. */
async function raterOf(db: Knex, principal: Principal): Promise<{ user_id: string; display_name: string }> {
  const passportId = principal.actor?.passport_id;
  const passport = passportId ? await findPassport(db, passportId, principal.organization_id) : undefined;
  if (passport) return { user_id: passport.passport_id, display_name: passport.name };
  return { user_id: principal.subject, display_name: principal.subject };
}

/**
 * Rates a connector through one of the caller's organization's active installations of it; a second rating
 * through the same installation replaces the first (same rating_id).
 */
export async function rateConnector(
  db: Knex,
  principal: Principal,
  connectorId: string,
  body: { rating: number; review_text?: string | undefined; installation_id: string },
): Promise<RateOutcome> {
  if (!(await findConnector(db, connectorId)))
    return { ok: false, code: 'connector_not_found', detail: `No connector ${connectorId}` };
  const installation = await findInstallationAnywhere(db, body.installation_id);
  const refusal = ratingRefusal(installation, {
    organization_id: principal.organization_id,
    connector_id: connectorId,
  });
  if (refusal) return { ok: false, code: 'installation_not_verified', detail: refusal };
  const now = new Date().toISOString();
  const { row, created } = await upsertRating(db, {
    rating_id: derivedId('rat', body.installation_id, 'rating'),
    installation_id: body.installation_id,
    organization_id: principal.organization_id,
    connector_id: connectorId,
    rating: body.rating,
    ...(body.review_text !== undefined ? { review_text: body.review_text } : {}),
    ...(await raterOf(db, principal)),
    created_at: now,
    updated_at: now,
  });
  return { ok: true, rating: ratingFromRow(row), created };
}

/** A page of the connector's ratings, newest first, with the summary of all of them; undefined for an unknown connector. */
export async function connectorRatings(db: Knex, connectorId: string, page: PageRequest) {
  if (!(await findConnector(db, connectorId))) return undefined;
  const [found, counts] = await Promise.all([listRatings(db, connectorId, page), ratingCounts(db, connectorId)]);
  return { ...found, data: found.data.map(ratingFromRow), summary: ratingSummary(counts) };
}
