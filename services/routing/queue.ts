import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { reviewerAvailableSignal } from '../../contracts/route-task';
import { findAvailableReviewer, reviewerPassport, upsertReviewer } from '../../db/reviewers';
import { findQueuedRoutingIds } from '../../db/routings';
import type { Reviewer } from '../../domain/routing/reviewer-assignment';
import { isClosedOrMissing } from '../../lib/temporal-client';
import { callOnceStarted } from '../workflow-starts/starts';

export interface ReviewerQueueDeps {
  db: Knex;
  temporal: Client;
}

/** Signals sent at once when offering a reviewer. */
const SIGNAL_CONCURRENCY = 16;

/**
 * Tells the oldest queued routings a reviewer may serve that they are available: each routing checks for
 * itself (weights, capacity, capabilities a rule added) and takes them if it can. Called when a reviewer is
 * registered or updated (any number may fit), or freed (one slot: a few suffice); a routing that closed
 * meanwhile is skipped, and one missed is found by its queue's next timeout.
 */
export async function offerReviewer(
  deps: ReviewerQueueDeps,
  organizationId: string,
  did: string,
  limit = 500,
): Promise<number> {
  const reviewer = await findAvailableReviewer(deps.db, organizationId, did);
  if (!reviewer) return 0;
  const routingIds = await findQueuedRoutingIds(deps.db, organizationId, Object.keys(reviewer.capabilities), limit);
  for (let start = 0; start < routingIds.length; start += SIGNAL_CONCURRENCY) {
    await Promise.all(
      routingIds.slice(start, start + SIGNAL_CONCURRENCY).map((routingId) =>
        callOnceStarted(deps, routingId, () =>
          deps.temporal.workflow.getHandle(routingId).signal(reviewerAvailableSignal),
        ).catch((error: unknown) => {
          if (!isClosedOrMissing(error)) throw error;
        }),
      ),
    );
  }
  return routingIds.length;
}

/** How many queued routings a freed reviewer is offered to: they freed one place, and the oldest routing waiting should get it. */
export const FREED_REVIEWER_OFFERS = 8;

/**
 * Creates or replaces a reviewer (admin), linked to the Passport that is them (the one named, else the one
 * with the reviewer's DID), and offers them to the routings waiting for one.
 */
export async function saveReviewer(
  deps: ReviewerQueueDeps,
  organizationId: string,
  reviewer: Reviewer & {
    capacity: number | null;
    passport_id?: string | undefined;
    email?: string | null | undefined;
    slack_user_id?: string | null | undefined;
  },
): Promise<{ ok: true; passport_id: string | null } | { ok: false; code: 'passport_not_found'; detail: string }> {
  const passport = await reviewerPassport(deps.db, organizationId, reviewer);
  if (!passport) return { ok: false, code: 'passport_not_found', detail: `No Passport ${reviewer.passport_id ?? ''}` };
  await upsertReviewer(deps.db, organizationId, { ...reviewer, passport_id: passport.passport_id });
  if (reviewer.available) await offerReviewer(deps, organizationId, reviewer.did);
  return { ok: true, passport_id: passport.passport_id };
}
