import type { FieldProblem, PlatformServiceDeps } from '../approvals/approvals';
import { checkModifiedParams, respondToApproval } from '../approvals/answers';
import type { DecisionSignature } from '../../domain/identity/decision-signatures';
import type { Logger } from '../../lib/logger';
import {
  acceptDecisionSignature,
  type DecisionSignatureDeps,
  type SubmittedSignature,
} from '../identity/passkeys/decision-signatures';
import { commentSha256 } from '../identity/passkeys/decision-verification';
import type { Principal } from '../identity/scopes';
import { resolveRoutingAs } from '../routing/resolution';
import type { RoutingServiceDeps } from '../routing/submit';
import type { InboxItem } from './items';
import { findInboxItem, type InboxDeps } from './queue';

export interface DecideDeps {
  inbox: InboxDeps;
  approvals: PlatformServiceDeps;
  routing: RoutingServiceDeps & { logger: Logger };
  signatures: DecisionSignatureDeps;
}

export interface InboxDecision {
  decision: 'approved' | 'rejected' | 'modified';
  comment?: string | undefined;
  modified_parameters?: Record<string, unknown> | undefined;
  signature: SubmittedSignature;
}

export type DecideOutcome =
  | { ok: true; item_id: string; status: string; signature: DecisionSignature }
  /** A refusal: a code the route words, and the fields at fault when the decision's shape is. */
  | { ok: false; code: string; detail?: string | undefined; errors?: FieldProblem[] | undefined };

const invalid = (field: string, message: string): DecideOutcome => ({
  ok: false,
  code: 'invalid_decision',
  errors: [{ field, code: 'invalid_value', message }],
});

/**
 * What the item's kind allows, checked before the signature so that a mistake costs no nonce: a routing is
 * approved, rejected or modified (the recommendation as changed); a request approved (its modified_parameters
 * fitting its params_schema, errors by field) or rejected.
 */
function decisionProblem(item: InboxItem, decision: InboxDecision): DecideOutcome | undefined {
  const { modified_parameters: modified } = decision;
  if (item.kind === 'routing') {
    if (decision.decision !== 'modified')
      return modified === undefined
        ? undefined
        : invalid('modified_parameters', 'only a modified decision carries them');
    return typeof modified?.recommendation === 'string' && modified.recommendation.trim() !== ''
      ? undefined
      : invalid('modified_parameters.recommendation', 'a modified routing needs the recommendation as changed');
  }
  if (decision.decision === 'modified')
    return invalid('decision', 'a request is approved (with modified_parameters) or rejected');
  if (modified === undefined) return undefined;
  if (decision.decision !== 'approved') return invalid('modified_parameters', 'only an approval carries them');
  const errors = checkModifiedParams(
    { params_schema: item.params_schema ?? undefined, request_data: item.context },
    modified,
  ).map((error) => ({ ...error, field: error.field.replace(/^modified_params/, 'modified_parameters') }));
  return errors.length > 0 ? { ok: false, code: 'invalid_decision', errors } : undefined;
}

/** The answer with the signed person as its actor: the services record the signature in the answer's ledger record. */
async function answer(deps: DecideDeps, caller: Principal, item: InboxItem, decision: InboxDecision) {
  if (item.kind === 'routing') {
    const resolved = await resolveRoutingAs(deps.routing, caller, {
      routing_id: item.item_id,
      outcome: decision.decision,
      comment: decision.comment,
      modified_recommendation: decision.modified_parameters?.recommendation as string | undefined,
    });
    return resolved.ok ? { ok: true as const, status: 'completed' } : resolved;
  }
  const answered = await respondToApproval(
    deps.approvals,
    item.item_id,
    caller,
    {
      decision: decision.decision === 'approved' ? 'approved' : 'rejected',
      response_kind: decision.decision === 'approved' ? 'approved' : 'rejected',
      comment: decision.comment,
      modified_params: decision.modified_parameters,
    },
    item.kind === 'escalation' ? 'respond_escalation' : 'respond_approval',
  );
  return answered.ok ? { ok: true as const, status: answered.approval.status } : answered;
}

/**
 * A decision from the person's inbox, signed by their passkey: only an item of their own queue, a decision
 * its kind takes, and a signature that verifies over exactly this decision with a nonce issued to them.
 * Then it is answered as any answer is (one conditional write), with the signature in its ledger record.
 */
export async function decideInboxItem(
  deps: DecideDeps,
  caller: Principal,
  itemId: string,
  decision: InboxDecision,
): Promise<DecideOutcome> {
  const { actor } = caller;
  if (!actor || caller.kind !== 'session')
    return {
      ok: false,
      code: 'person_required',
      detail: 'Only a person signed in with a passkey decides from the inbox',
    };
  const person = { principal_id: caller.id, organization_id: caller.organization_id, actor };
  const item = await findInboxItem(deps.inbox, person, itemId);
  if (!item) return { ok: false, code: 'inbox_item_not_found', detail: `${itemId} is not in your inbox` };
  const problem = decisionProblem(item, decision);
  if (problem) return problem;
  const signed = await acceptDecisionSignature(
    deps.signatures,
    actor,
    {
      item_id: itemId,
      decision: decision.decision,
      modified_parameters: decision.modified_parameters ?? null,
      comment_sha256: commentSha256(decision.comment),
    },
    decision.signature,
  );
  if (!signed.ok) return signed;
  const answered = await answer(
    deps,
    { ...caller, actor: { ...actor, decision_signature: signed.signature } },
    item,
    decision,
  );
  if (!answered.ok) return answered;
  return { ok: true, item_id: itemId, status: answered.status, signature: signed.signature };
}
