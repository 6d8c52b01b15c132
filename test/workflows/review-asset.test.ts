import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { createAssetActivities } from '../../activities/assets';
import { reviewWorkflowId } from '../../contracts/review-asset';
import type { ReviewCheck } from '../../domain/marketplace/assets';
import { reviewAssetWorkflow } from '../../workflows/review-asset';
import { startTimeSkipping, withWorker } from '../support/time-skipping';

let env: TestWorkflowEnvironment;
let steps: string[];
let concluded: unknown[];
/** The reasons each check finds, by asset. */
let findings: Record<string, Partial<Record<ReviewCheck['check'], string[]>>>;
let databaseAway: number;

const activities: ReturnType<typeof createAssetActivities> = {
  async runReviewStep(assetId, step) {
    if (databaseAway > 0) {
      databaseAway -= 1;
      throw new Error('connection terminated');
    }
    steps.push(`${assetId}:${step}`);
    const reasons = findings[assetId]?.[step] ?? [];
    return {
      check: { check: step, passed: reasons.length === 0, reasons },
      ...(step === 'provenance' && reasons.length === 0
        ? { publisher: { did: 'did:web:p', type: 'individual' as const, identity_tier: 2, same_organization: false } }
        : {}),
    };
  },
  async recordReviewConclusion(assetId, conclusion, publisherDid) {
    concluded.push({ assetId, conclusion, publisherDid });
    return conclusion.review_status;
  },
};

beforeAll(async () => {
  env = await startTimeSkipping();
});
afterAll(() => env?.teardown());
beforeEach(() => {
  steps = [];
  concluded = [];
  findings = {};
  databaseAway = 0;
});

async function review(assetId: string) {
  const started = new Set<string>();
  return withWorker(
    env,
    activities,
    async (taskQueue) => {
      const workflowId = reviewWorkflowId(assetId);
      started.add(workflowId);
      return env.client.workflow.execute(reviewAssetWorkflow, {
        workflowId,
        taskQueue,
        args: [{ asset_id: assetId, step_timeout_ms: 10_000 }],
      });
    },
    started,
  );
}

describe('reviewAssetWorkflow', () => {
  it('runs the manifest then the provenance check, and approves with the publisher’s tier', async () => {
    databaseAway = 2;
    expect(await review('ast_good')).toBe('approved');
    expect(steps).toEqual(['ast_good:manifest', 'ast_good:provenance']);
    expect(concluded).toEqual([
      {
        assetId: 'ast_good',
        conclusion: { review_status: 'approved', trust_tier: 'certified', reasons: [] },
        publisherDid: 'did:web:p',
      },
    ]);
  });

  it('rejects with the reasons of every check that failed, and names no publisher', async () => {
    findings.ast_bad = { manifest: ['too big'], provenance: ['does not verify'] };
    expect(await review('ast_bad')).toBe('rejected');
    expect(concluded).toEqual([
      {
        assetId: 'ast_bad',
        conclusion: {
          review_status: 'rejected',
          trust_tier: null,
          reasons: ['manifest: too big', 'provenance: does not verify'],
        },
        publisherDid: null,
      },
    ]);
  });
});
