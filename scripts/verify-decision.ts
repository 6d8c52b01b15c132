import { DECISION_BUNDLE_FORMAT, verifyDecisionBundle } from '../services/identity/passkeys/decision-verification';
import type { VerifyReport } from '../services/ledger/verify';

/**
 * `npm run verify -- <bundle.json>` for a decision signed in the inbox (GET /v1/inbox/items/{item_id}/signature):
 * the passkey's signature against the signer's DID document, the comment against its hash, the ledger record
 * against its leaf hash (docs/decision-signatures.md). Undefined for any other file.
 */
export function decisionReport(bundle: { format?: unknown } | undefined): VerifyReport | undefined {
  if (bundle?.format !== DECISION_BUNDLE_FORMAT) return undefined;
  const check = verifyDecisionBundle(bundle);
  return { ok: check.ok, verified: check.verified, problems: check.problems };
}
