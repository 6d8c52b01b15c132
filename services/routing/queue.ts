import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Knex } from 'knex';
import { reviewerAvailableSignal } from '../../contracts/route-task';
import { findAvailableReviewer, upsertReviewer } from '../../db/reviewers';
import { findQueuedRoutingIds } from '../../db/routings';
import type { Reviewer } from '../../domain/reviewer-assignment';

export interface ReviewerQueueDeps {
  db: Knex;
  temporal: Client;
}

/**
 * Tells the queued routings a reviewer may serve that they are available: each routing checks for itself
 * (weights, capacity, capabilities a rule added) and takes them if it can. Called when a reviewer is
 * registered, updated or freed; a routing that closed meanwhile is skipped.
 */
export async function offerReviewer(deps: ReviewerQueueDeps, did: string): Promise<number> {
  const reviewer = await findAvailableReviewer(deps.db, did);
  if (!reviewer) return 0;
  const routingIds = await findQueuedRoutingIds(deps.db, Object.keys(reviewer.capabilities));
  for (const routingId of routingIds) {
    await deps.temporal.workflow
      .getHandle(routingId)
      .signal(reviewerAvailableSignal)
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
  }
  return routingIds.length;
}

/** Creates or replaces a reviewer (admin), and offers them to the routings waiting for one. */
export async function saveReviewer(deps: ReviewerQueueDeps, reviewer: Reviewer & { capacity: number | null }): Promise<void> {
  await upsertReviewer(deps.db, reviewer);
  if (reviewer.available) await offerReviewer(deps, reviewer.did);
}
