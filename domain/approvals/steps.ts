/**
 * The transitions of one approval request (requested, then approved, rejected, cancelled or expired): what
 * each changes, who is accountable for it, and the provenance record and event it leaves. The approval
 * workflow only says what happened; what that means is decided here.
 */
import type { ApprovalDecision, ApprovalStatus, ExpiryAction, ExpiryOutcome, ResponseKind } from './requests';
import { actingFor, type ApprovalVote } from './quorum';
import type { EventKind } from '../provenance/events';
import type { RiskLevel } from '../routing/risk';
import { humanProvenanceActor, type HumanActor } from '../identity/human-acts';
import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';

/** What the transitions read of a request: the part of the approval's workflow input (contracts/approval.ts) that decides. */
export interface ApprovalRequestFacts {
  approval_id: string;
  org_did?: string | undefined;
  task_id?: string | undefined;
  agent_id?: string | undefined;
  /** The execution that waits for this approval, when an agent call asked for it. */
  execution_id?: string | undefined;
  /** The workflow DAG whose approval node this is. */
  workflow_id?: string | undefined;
  requester_passport_id: string;
  approver_passport_id?: string | undefined;
  action_description: string;
  risk_level: RiskLevel;
  /** The deadline of the durable timer: at this instant a pending request becomes expired. */
  expires_at: string;
  approvers?: readonly string[] | undefined;
  required_approvals?: number | undefined;
  /** Seat DID → the named approver it covers for. */
  covering_for?: Readonly<Record<string, string>> | undefined;
}

/** What the transitions read of a request's state. */
export interface ApprovalFacts extends ApprovalRequestFacts {
  status: ApprovalStatus;
  responded_by?: string | undefined;
  modified_params?: Record<string, unknown> | undefined;
  cancelled_by?: string | undefined;
  cancel_reason?: string | undefined;
  votes?: readonly ApprovalVote[] | undefined;
  approvals_needed?: number | undefined;
  on_expiry?: ExpiryAction | undefined;
  escalation_level?: number | undefined;
  expiry_outcome?: ExpiryOutcome | undefined;
}

/** The fields a transition sets on the request. */
export interface ApprovalChanges {
  status?: ApprovalStatus;
  responded_by?: string;
  response_kind?: ResponseKind;
  response_comment?: string;
  modified_params?: Record<string, unknown>;
  cancelled_by?: string;
  cancel_reason?: string;
  responded_at?: string;
  /** A quorum request's votes so far, and how many approvals it still needs. */
  votes?: ApprovalVote[];
  approvals_needed?: number;
  /** What the deadline did (expiry.ts); an escalation also moves the request to its next approver and deadline. */
  expiry_outcome?: ExpiryOutcome;
  approver_passport_id?: string;
  escalation_level?: number;
  expires_at?: string;
}

/** The action of each transition's provenance record. */
export type ApprovalAction =
  | 'approval_requested'
  | `approval_${ApprovalDecision}`
  | `approval_vote_${ApprovalDecision}`
  | 'approval_cancelled'
  | 'approval_expired'
  | 'approval_escalated'
  | 'approval_held';

export interface ApprovalTransition {
  step_id: string;
  actor: ProvenanceActor;
  action: ApprovalAction;
  reasoning: string;
  event: EventKind;
  changes: ApprovalChanges;
}

/** How a pending request came to an end. */
export type ApprovalEnding =
  | {
      kind: 'respond';
      input: {
        decision: ApprovalDecision;
        response_kind: ResponseKind;
        responded_by: string;
        principal: string;
        actor?: HumanActor | undefined;
        comment?: string | undefined;
        modified_params?: Record<string, unknown> | undefined;
      };
    }
  | {
      kind: 'cancel';
      input: { cancelled_by: string; principal: string; actor?: HumanActor | undefined; reason?: string | undefined };
    }
  | { kind: 'expired' }
  /** The workflow itself was cancelled (by the execution or DAG that asked, or in Temporal). */
  | { kind: 'workflow_cancelled' };

const core: ProvenanceActor = { type: 'orch_core', did: ORCH_CORE_DID };

/** Who answered: the signed-in person and their credential; a DID alone in histories from before people signed in. */
const answeredBy = (did: string, actor: HumanActor | undefined): ProvenanceActor =>
  actor ? humanProvenanceActor(actor) : { type: 'human', did };

/**
 * Who asked, as the caller's credential proved it (the requester DID of the body proves nothing): a person
 * signed in, or an agent holding their delegation token (`agent_did`); or a credential that authenticates no
 * person (a PAT, a service account, an OAuth client), by its kind and id.
 */
export type ProvenRequester =
  | { kind: 'person'; person: HumanActor; agent_did?: string | undefined }
  | { kind: 'principal'; principal: { kind: string; id: string } };

/**
 * The actor of the `requested` record. Only a signed-in person is `human`; their agent, or a credential that is
 * no person, is `ai_agent`. Unproven (an execution's or a DAG's approval, asked by the workflow): the core.
 */
export function approvalRequesterActor(
  request: Pick<ApprovalRequestFacts, 'agent_id'>,
  requester: ProvenRequester | undefined,
): ProvenanceActor {
  if (!requester) return core;
  if (requester.kind === 'principal') {
    const { principal } = requester;
    return {
      type: 'ai_agent',
      ...(request.agent_id ? { agent_id: request.agent_id } : {}),
      instance_id: principal.id,
      principal: { kind: principal.kind, id: principal.id },
    };
  }
  const { person, agent_did } = requester;
  if (agent_did === undefined) return humanProvenanceActor(person);
  return {
    type: 'ai_agent',
    did: agent_did,
    ...(person.agent_id !== undefined ? { agent_id: person.agent_id } : {}),
    ...(person.delegation !== undefined ? { delegation_token_id: person.delegation.token_id } : {}),
  };
}

export function requestedTransition(request: ApprovalRequestFacts, requester?: ProvenRequester): ApprovalTransition {
  return {
    step_id: 'requested',
    actor: approvalRequesterActor(request, requester),
    action: 'approval_requested',
    reasoning: `${request.requester_passport_id} asks ${askedOf(request)} to approve: ${request.action_description}`,
    event: 'approval.requested',
    changes: {},
  };
}

/** Whom a request asks, in words: "bea, covering for ada", or "2 of a, b, c". */
function askedOf(request: ApprovalRequestFacts): string {
  const seat = (did: string) => actingFor(did, request.covering_for?.[did]);
  if (request.approvers?.length)
    return `${request.required_approvals ?? request.approvers.length} of ${request.approvers.map(seat).join('; ')}`;
  return request.approver_passport_id ? seat(request.approver_passport_id) : 'an approver';
}

/** The transition of a human's answer (a response or a cancel): it depends on the answer alone. */
export function answerTransition(
  end: Extract<ApprovalEnding, { kind: 'respond' | 'cancel' }>,
  at: string,
): ApprovalTransition {
  if (end.kind === 'respond') {
    const { input } = end;
    return {
      step_id: 'responded',
      actor: answeredBy(input.responded_by, input.actor),
      action: `approval_${input.decision}`,
      reasoning:
        input.comment ??
        `${input.responded_by} ${input.decision} the request (${input.response_kind}; caller ${input.principal})`,
      event: input.decision === 'approved' ? 'approval.approved' : 'approval.rejected',
      changes: {
        status: input.decision,
        responded_by: input.responded_by,
        response_kind: input.response_kind,
        responded_at: at,
        ...(input.comment !== undefined ? { response_comment: input.comment } : {}),
        ...(input.modified_params !== undefined ? { modified_params: input.modified_params } : {}),
      },
    };
  }
  const { input } = end;
  return {
    step_id: 'cancelled',
    actor: answeredBy(input.cancelled_by, input.actor),
    action: 'approval_cancelled',
    reasoning: input.reason ?? `${input.cancelled_by} cancelled the request (caller ${input.principal})`,
    event: 'approval.cancelled',
    changes: {
      status: 'cancelled',
      cancelled_by: input.cancelled_by,
      responded_at: at,
      ...(input.reason !== undefined ? { cancel_reason: input.reason } : {}),
    },
  };
}

/** The request's last transition, from how it ended. */
export function endedTransition(request: ApprovalRequestFacts, end: ApprovalEnding, at: string): ApprovalTransition {
  switch (end.kind) {
    case 'respond':
    case 'cancel':
      return answerTransition(end, at);
    case 'workflow_cancelled': {
      const by = request.execution_id ?? request.workflow_id;
      return {
        step_id: 'cancelled',
        actor: core,
        action: 'approval_cancelled',
        reasoning: 'The workflow was cancelled',
        event: 'approval.cancelled',
        changes: {
          status: 'cancelled',
          cancelled_by: ORCH_CORE_DID,
          cancel_reason: by ? `${by} was cancelled` : 'cancelled in Temporal',
          responded_at: at,
        },
      };
    }
    case 'expired':
      return {
        step_id: 'expired',
        actor: core,
        action: 'approval_expired',
        reasoning: `No answer by ${request.expires_at}`,
        event: 'approval.expired',
        changes: { status: 'expired' },
      };
  }
}

/**
 * Why an answer (respond or cancel) is refused, or undefined when it is taken. The clock check covers a
 * deadline that has passed while its timer has not fired yet (no worker was up at the deadline).
 */
export function answerRefusal(
  approval: ApprovalFacts,
  answering: boolean,
  nowMs: number,
  deadlineMs: number,
): string | undefined {
  if (answering) return `Approval ${approval.approval_id} is already being answered`;
  if (approval.status !== 'pending') return `Approval ${approval.approval_id} is ${approval.status}, not pending`;
  if (nowMs >= deadlineMs) return `Approval ${approval.approval_id} expired at ${approval.expires_at}`;
  return undefined;
}

/** The provenance record and event of a transition, over the request as the transition left it. */
export function approvalRecord(
  request: ApprovalRequestFacts,
  approval: ApprovalFacts,
  transition: ApprovalTransition,
  at: string,
): AppendProvenanceInput {
  return {
    entry: {
      subject_id: approval.approval_id,
      step_id: transition.step_id,
      timestamp: at,
      actor: transition.actor,
      action: transition.action,
      input_data: { ...request },
      output_data: { status: approval.status, ...transition.changes },
      reasoning: transition.reasoning,
    },
    events: [{ event: transition.event, data: approvalEventData(approval) }],
  };
}

export function approvalEventData(approval: ApprovalFacts): Record<string, unknown> {
  return {
    approval_id: approval.approval_id,
    status: approval.status,
    org_did: approval.org_did ?? null,
    task_id: approval.task_id ?? null,
    agent_id: approval.agent_id ?? null,
    execution_id: approval.execution_id ?? null,
    requester_passport_id: approval.requester_passport_id,
    approver_passport_id: approval.approver_passport_id ?? null,
    risk_level: approval.risk_level,
    expires_at: approval.expires_at,
    ...(approval.responded_by
      ? { responded_by: approval.responded_by, modified_params: approval.modified_params ?? null }
      : {}),
    ...(approval.cancelled_by ? { cancelled_by: approval.cancelled_by, reason: approval.cancel_reason ?? null } : {}),
    ...(approval.approvers
      ? {
          approvers: approval.approvers,
          required_approvals: approval.required_approvals ?? null,
          votes: approval.votes ?? [],
          approvals_needed: approval.approvals_needed ?? null,
        }
      : {}),
    ...(approval.covering_for ? { covering_for: approval.covering_for } : {}),
    ...(approval.expiry_outcome
      ? {
          on_expiry: approval.on_expiry ?? 'reject',
          expiry_outcome: approval.expiry_outcome,
          escalation_level: approval.escalation_level ?? 0,
        }
      : {}),
  };
}
