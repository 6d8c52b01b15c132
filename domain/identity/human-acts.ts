/**
 * Human acts: answering or cancelling an approval, answering an escalation-queue item, resolving a routing,
 * escalating one by hand, giving feedback on one. Only a signed-in person does them (a session from a passkey
 * or device key), or an agent holding that person's delegation that covers the act; the DID a body names may
 * only repeat who that person is. Every act is recorded with the Passport and the credential that
 * authenticated it.
 */
import { HUMAN_ACT_CAPABILITIES, type HumanAct } from './capabilities';
import type { ProvenanceActor } from '../provenance/records';
import type { DecisionSignature } from './decision-signatures';

export { HUMAN_ACT_CAPABILITIES, type HumanAct };

const ACT_WORDS: Record<HumanAct, string> = {
  respond_approval: 'answer an approval request',
  respond_escalation: 'answer an item of the escalation queue',
  cancel_approval: 'cancel an approval request',
  resolve_routing: 'resolve a routing',
  escalate_routing: 'escalate a routing by hand',
  routing_feedback: 'give feedback on a routing',
};

/** The person doing an act, as the credential that authenticated the call names them. */
export interface HumanActor {
  passport_id: string;
  did: string;
  credential: { type: 'passkey' | 'device_key' | 'delegation_token' | 'email_link' | 'slack_action'; id: string };
  /** Under a delegation token: the agent acting for the person. */
  agent_id?: string | undefined;
  /** Under a delegation token: the token, so that the record names it beside the credential that signed in. */
  delegation?: { token_id: string } | undefined;
  /** A decision made in the inbox: the person's passkey signature over exactly this decision, checked before it is taken. */
  decision_signature?: DecisionSignature | undefined;
}

/** What the checks read of an authenticated caller (services/identity/scopes.ts Principal has this shape). */
export interface HumanActCaller {
  kind: string;
  scopes: readonly string[];
  actor?: HumanActor | undefined;
}

export type HumanActRefusal = {
  ok: false;
  code: 'person_required' | 'actor_mismatch' | 'delegation_not_covering' | 'not_the_approver';
  detail: string;
};
export type HumanActCheck = { ok: true; actor: HumanActor } | HumanActRefusal;

/**
 * The person doing `act`, or why the caller may not: a credential that authenticates no Passport (a personal
 * access token, a service account, an OAuth client, an agent key) cannot; a delegation must hold the act's
 * capability; a DID the body names (`claimed`) must be the person's own, or one of `aliases` (the reviewer
 * DIDs linked to their Passport).
 */
export function humanActorOf(
  caller: HumanActCaller,
  act: HumanAct,
  claimed?: string,
  aliases: readonly string[] = [],
): HumanActCheck {
  const { actor } = caller;
  if (!actor) {
    return {
      ok: false,
      code: 'person_required',
      detail: `Only a signed-in person may ${ACT_WORDS[act]}: sign in with a passkey or a device key and call with the session token (a ${caller.kind.replace(/_/g, ' ')} is no person)`,
    };
  }
  if (caller.kind === 'delegation_token' && !caller.scopes.includes(HUMAN_ACT_CAPABILITIES[act])) {
    return {
      ok: false,
      code: 'delegation_not_covering',
      detail: `The delegation from ${actor.did} does not hold ${HUMAN_ACT_CAPABILITIES[act]}, which it takes to ${ACT_WORDS[act]} for them`,
    };
  }
  if (claimed !== undefined && claimed !== actor.did && !aliases.includes(claimed)) {
    return {
      ok: false,
      code: 'actor_mismatch',
      detail: `The request names ${claimed}, but the signed-in person is ${actor.did}: a person acts only as themself`,
    };
  }
  return { ok: true, actor };
}

/** Whether `identity` (a DID, or a Passport id as older requests name the approver) is this person. */
function isPerson(actor: HumanActor, identity: string): boolean {
  return identity === actor.did || identity === actor.passport_id;
}

/**
 * Refuses an answer (or a cancel) to a request addressed to an approver by anyone else: the approver's
 * session, or a delegation from the approver, passes. A cancel may also come from whoever asked.
 */
export function approverRefusal(
  approval: { approval_id: string; approver_passport_id?: string | null | undefined; requester_passport_id: string },
  actor: HumanActor,
  act: 'answer' | 'cancel',
): HumanActRefusal | undefined {
  const approver = approval.approver_passport_id;
  if (!approver || isPerson(actor, approver)) return undefined;
  if (act === 'cancel' && isPerson(actor, approval.requester_passport_id)) return undefined;
  return {
    ok: false,
    code: 'not_the_approver',
    detail: `Approval ${approval.approval_id} is addressed to ${approver}; ${actor.did} may not ${act} it${act === 'answer' ? ' (a delegate needs a delegation from the approver)' : ' (only the approver or the requester may)'}`,
  };
}

/** The provenance actor of a person's act: their DID and Passport, the credential, and the agent when a delegate did it. */
export function humanProvenanceActor(actor: HumanActor): ProvenanceActor {
  return {
    type: 'human',
    did: actor.did,
    passport_id: actor.passport_id,
    credential: { type: actor.credential.type, id: actor.credential.id },
    ...(actor.agent_id !== undefined ? { agent_id: actor.agent_id } : {}),
    ...(actor.delegation !== undefined ? { delegation_token_id: actor.delegation.token_id } : {}),
    ...(actor.decision_signature !== undefined ? { decision_signature: actor.decision_signature } : {}),
  };
}
