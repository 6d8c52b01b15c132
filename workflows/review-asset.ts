import { proxyActivities } from '@temporalio/workflow';
import type { createAssetActivities } from '../activities/assets';
import { DATABASE_ACTIVITY_RETRY } from '../contracts/failures';
import type { ReviewAssetInput } from '../contracts/review-asset';
import { reviewConclusion, type ReviewCheck } from '../domain/marketplace/assets';

const STEPS: ReviewCheck['check'][] = ['manifest', 'provenance'];

/**
 * An asset's review: each check runs as an activity that records its outcome on the asset and in its
 * provenance; the rules of domain/marketplace/assets.ts conclude it (approved with a trust tier when every
 * check passed, else rejected with every reason), and the conclusion is recorded once.
 */
export async function reviewAssetWorkflow(input: ReviewAssetInput): Promise<'approved' | 'rejected'> {
  const { runReviewStep, recordReviewConclusion } = proxyActivities<ReturnType<typeof createAssetActivities>>({
    startToCloseTimeout: input.step_timeout_ms,
    retry: DATABASE_ACTIVITY_RETRY,
  });
  const results = [];
  for (const step of STEPS) results.push(await runReviewStep(input.asset_id, step));
  const publisher = results.find((result) => result.publisher)?.publisher;
  const conclusion = reviewConclusion(
    results.map((result) => result.check),
    publisher,
  );
  return recordReviewConclusion(input.asset_id, conclusion, publisher?.did ?? null);
}
