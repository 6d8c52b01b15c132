import { createHash } from 'node:crypto';
import type { SubscriptionRow } from '../../db/webhooks';
import { ORCH_CORE_DID, type ProvenanceEntry } from '../../domain/provenance/records';

/**
 * The ledger is append-only, and a webhook URL may carry a token in its path or query: the record keeps
 * the origin and a SHA-256 of the whole URL, enough to tell which URL it was without keeping the token.
 */
export function urlFingerprint(url: string): { url_origin: string; url_sha256: string } {
  return { url_origin: new URL(url).origin, url_sha256: createHash('sha256').update(url).digest('hex') };
}

/** What a subscription is after a change, as the ledger records it (never a secret). */
function recordedSubscription(subscription: SubscriptionRow) {
  return {
    ...urlFingerprint(subscription.url),
    events: subscription.events,
    description: subscription.description,
    status: subscription.status,
    disabled_reason: subscription.disabled_reason,
    version: subscription.version,
  };
}

/**
 * One provenance record per change of a subscription, keyed by the version the change produced, so a
 * retried write finds the first record instead of adding a second.
 */
export function subscriptionChangeEntry(
  subscription: SubscriptionRow,
  change: {
    action: string;
    timestamp: string;
    requested_by?: string;
    input?: Record<string, unknown>;
    reasoning: string;
  },
): ProvenanceEntry {
  return {
    subject_id: subscription.subscription_id,
    step_id: `v${subscription.version}:${change.action}`,
    timestamp: change.timestamp,
    actor: { type: 'orch_core', did: ORCH_CORE_DID },
    action: `webhook_subscription_${change.action}`,
    input_data: { ...(change.requested_by ? { requested_by: change.requested_by } : {}), ...change.input },
    output_data: recordedSubscription(subscription),
    reasoning: change.reasoning,
  };
}
