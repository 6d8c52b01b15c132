/**
 * Approval requests: their states, the ways a human answers one (the full respond, the simplified
 * approve/reject, the escalation queue's four decisions) reduced to one response, and the schema that
 * modified parameters must fit when the request names none.
 */

/** failed: the request, or its answer, could not be stored (see its failure); no human acts on it any more. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'cancelled', 'failed'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * What a request's deadline does, chosen per request: reject it (status expired, the action not taken), approve it,
 * escalate it to the next approver of escalate_to with a new deadline, or hold it open for a human past its
 * deadline. Whichever, the request and its approval.expired event say so (expiry_outcome); none is a silent denial.
 */
export const EXPIRY_ACTIONS = ['reject', 'approve', 'escalate', 'hold'] as const;
export type ExpiryAction = (typeof EXPIRY_ACTIONS)[number];
export const EXPIRY_OUTCOMES = ['rejected', 'approved', 'escalated', 'held'] as const;
export type ExpiryOutcome = (typeof EXPIRY_OUTCOMES)[number];

export const APPROVAL_DECISIONS = ['approved', 'rejected'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** The simplified variant's words. */
export const SIMPLE_DECISIONS = ['approve', 'reject'] as const;
export type SimpleDecision = (typeof SIMPLE_DECISIONS)[number];

/** The escalation queue's words. */
export const ESCALATION_DECISIONS = ['approve', 'approved_with_modifications', 'reject', 'request_changes'] as const;
export type EscalationDecision = (typeof ESCALATION_DECISIONS)[number];

/** How the answer was given, kept with it: the decision word the responder used. */
export type ResponseKind = ApprovalDecision | SimpleDecision | EscalationDecision;

export interface ApprovalResponse {
  decision: ApprovalDecision;
  response_kind: ResponseKind;
  comment?: string | undefined;
  modified_params?: Record<string, unknown> | undefined;
}

export function simpleResponse(decision: SimpleDecision, reason: string | undefined): ApprovalResponse {
  return { decision: decision === 'approve' ? 'approved' : 'rejected', response_kind: decision, comment: reason };
}

export type EscalationResponse =
  { ok: true; response: ApprovalResponse } | { ok: false; field: string; message: string };

/**
 * The escalation queue's answer as an approval response: request_changes rejects the request as it stands
 * (the requester may submit a changed one); approved_with_modifications approves it with the modifications,
 * a JSON object of parameters, as modified_params.
 */
export function escalationResponse(input: {
  decision: EscalationDecision;
  notes?: string | undefined;
  modifications?: string | undefined;
}): EscalationResponse {
  const { decision, notes } = input;
  if (decision !== 'approved_with_modifications') {
    if (input.modifications !== undefined)
      return { ok: false, field: 'modifications', message: `is only for approved_with_modifications, not ${decision}` };
    return {
      ok: true,
      response: { decision: decision === 'approve' ? 'approved' : 'rejected', response_kind: decision, comment: notes },
    };
  }
  if (input.modifications === undefined)
    return { ok: false, field: 'modifications', message: 'is required with approved_with_modifications' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.modifications);
  } catch {
    return { ok: false, field: 'modifications', message: 'must be a JSON object of the modified parameters' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, field: 'modifications', message: 'must be a JSON object of the modified parameters' };
  return {
    ok: true,
    response: {
      decision: 'approved',
      response_kind: decision,
      comment: notes,
      modified_params: parsed as Record<string, unknown>,
    },
  };
}

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/**
 * When a request names no schema for its parameters, modified parameters may change only the parameters it
 * carries, each keeping its JSON type (an integer may become any number).
 */
export function paramsSchemaOf(requestData: Record<string, unknown>): Record<string, unknown> {
  const properties = Object.fromEntries(
    Object.entries(requestData).map(([key, value]) => {
      const type = jsonTypeOf(value);
      return [key, { type: type === 'integer' ? 'number' : type }];
    }),
  );
  return { type: 'object', properties, additionalProperties: false };
}

/** Who made a request, as far as the credential that made it shows: its principal, and the Passport (and agent) behind it. */
export interface ApprovalMaker {
  principal_id: string;
  passport_id?: string | undefined;
  /** The agent that held the delegation the request was made with. */
  agent_did?: string | undefined;
}

/** Who answers, as the credential proves it: the person (the delegator, under a delegation token) and the agent holding the token. */
export interface ApprovalAnswerer {
  principal_id: string;
  passport_id: string;
  did: string;
  agent_did?: string | undefined;
}

/**
 * Separation of duties: nobody answers a request they asked for. Refused: the requester the request names (a
 * person, by DID or Passport id, or an agent) and anyone acting as them (their session, their delegates); the
 * credential that made the request; the person who made it (with their session or through a delegation) and their
 * delegates; the agent that made it, even under someone else's delegation.
 */
export function selfAnswerRefusal(
  approval: { approval_id: string; requester_passport_id: string; requested_by: string },
  maker: ApprovalMaker,
  answerer: ApprovalAnswerer,
): { code: 'requester_may_not_answer'; detail: string } | undefined {
  const requester = approval.requester_passport_id;
  const named = requester === answerer.did || requester === answerer.passport_id || requester === answerer.agent_did;
  const sameCredential = maker.principal_id === answerer.principal_id;
  const samePerson = maker.passport_id !== undefined && maker.passport_id === answerer.passport_id;
  const sameAgent = maker.agent_did !== undefined && maker.agent_did === answerer.agent_did;
  if (!named && !sameCredential && !samePerson && !sameAgent) return undefined;
  const who = answerer.agent_did ? `${answerer.agent_did} (for ${answerer.did})` : answerer.did;
  return {
    code: 'requester_may_not_answer',
    detail: `Approval ${approval.approval_id} was requested by ${named ? requester : 'this caller'}; ${who} may not answer a request of their own or their delegate's: another person must`,
  };
}
