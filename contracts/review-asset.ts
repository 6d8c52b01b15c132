import type { PublisherFacts, ReviewCheck } from '../domain/marketplace/assets';

/** The review workflow's type name and signature, so that the API starts it without loading workflow code. */
export const REVIEW_ASSET_WORKFLOW = 'reviewAssetWorkflow';

export interface ReviewAssetInput {
  asset_id: string;
  /** How long one step (a check, or the conclusion) may take before it is retried. */
  step_timeout_ms: number;
}

export type ReviewStepResult = { check: ReviewCheck; publisher?: PublisherFacts & { did: string } };

export type ReviewAssetWorkflow = (input: ReviewAssetInput) => Promise<'approved' | 'rejected'>;

/** One review per asset. */
export function reviewWorkflowId(assetId: string): string {
  return `asset-review:${assetId}`;
}
