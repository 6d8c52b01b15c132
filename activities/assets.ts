import type { Knex } from 'knex';
import type { ReviewStepResult } from '../contracts/review-asset';
import type { ReviewCheck } from '../domain/marketplace/assets';
import { recordConclusion, runReviewStep, type ReviewConclusion } from '../services/assets/review';

/** The asset review's steps: each check (recorded on the asset and in its provenance), and the conclusion. */
export function createAssetActivities(deps: { db: Knex }) {
  return {
    async runReviewStep(assetId: string, step: ReviewCheck['check']): Promise<ReviewStepResult> {
      return runReviewStep(deps.db, assetId, step);
    },
    async recordReviewConclusion(
      assetId: string,
      conclusion: ReviewConclusion,
      publisherDid: string | null,
    ): Promise<'approved' | 'rejected'> {
      return recordConclusion(deps.db, assetId, conclusion, publisherDid);
    },
  };
}
