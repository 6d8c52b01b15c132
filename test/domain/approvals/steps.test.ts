import {
  answerRefusal,
  approvalRecord,
  endedTransition,
  requestedTransition,
  type ApprovalEnding,
  type ApprovalFacts,
  type ApprovalRequestFacts,
  type ProvenRequester,
} from '../../../domain/approvals/steps';
import type { HumanActor } from '../../../domain/identity/human-acts';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';

const request = (changes: Partial<ApprovalRequestFacts> = {}): ApprovalRequestFacts => ({
  approval_id: 'apr_1',
  requester_passport_id: 'did:web:example.com:alice',
  approver_passport_id: 'did:web:example.com:bob',
  action_description: 'Pay 500 EUR',
  risk_level: 'high',
  expires_at: '2026-11-24T10:00:00.000Z',
  ...changes,
});
const AT = '2026-11-23T10:00:00.000Z';
const core = { type: 'orch_core', did: ORCH_CORE_DID };

describe('the transitions of an approval request', () => {
  const alice: HumanActor = {
    passport_id: 'pp_alice',
    did: 'did:web:example.com:alice',
    credential: { type: 'device_key', id: 'kid-alice' },
  };
  const alicesAgent: HumanActor = {
    ...alice,
    credential: { type: 'delegation_token', id: 'kid-alice' },
    agent_id: 'agt_payer',
    delegation: { token_id: 'dtk_1' },
  };
  it.each<[string, Partial<ApprovalRequestFacts>, ProvenRequester | undefined, object]>([
    [
      'the person signed in',
      {},
      { kind: 'person', person: alice },
      { type: 'human', did: alice.did, passport_id: 'pp_alice', credential: { type: 'device_key', id: 'kid-alice' } },
    ],
    [
      'an agent holding the person’s delegation token, whatever DID the body names',
      {},
      { kind: 'person', person: alicesAgent, agent_did: 'did:web:example.com:agents:payer' },
      {
        type: 'ai_agent',
        did: 'did:web:example.com:agents:payer',
        agent_id: 'agt_payer',
        delegation_token_id: 'dtk_1',
      },
    ],
    [
      'a personal access token, which is no person',
      { agent_id: 'urn:agent:payer' },
      { kind: 'principal', principal: { kind: 'personal_access_token', id: 'pat:1' } },
      {
        type: 'ai_agent',
        agent_id: 'urn:agent:payer',
        instance_id: 'pat:1',
        principal: { kind: 'personal_access_token', id: 'pat:1' },
      },
    ],
    ['the core, for an execution or a DAG that asked', { agent_id: 'urn:agent:payer' }, undefined, core],
  ])('is requested on the account of %s', (_who, changes, requester, actor) => {
    expect(requestedTransition(request(changes), requester)).toEqual({
      step_id: 'requested',
      actor,
      action: 'approval_requested',
      reasoning: 'did:web:example.com:alice asks did:web:example.com:bob to approve: Pay 500 EUR',
      event: 'approval.requested',
      changes: {},
    });
  });

  it.each<[string, ApprovalEnding, ApprovalRequestFacts, object]>([
    [
      'approves with the approver’s comment and modified parameters',
      {
        kind: 'respond',
        input: {
          decision: 'approved',
          response_kind: 'approve',
          responded_by: 'did:web:example.com:bob',
          principal: 'svc',
          comment: 'ok',
          modified_params: { amount: 400 },
        },
      },
      request(),
      {
        step_id: 'responded',
        actor: { type: 'human', did: 'did:web:example.com:bob' },
        action: 'approval_approved',
        reasoning: 'ok',
        event: 'approval.approved',
        changes: {
          status: 'approved',
          responded_by: 'did:web:example.com:bob',
          response_kind: 'approve',
          responded_at: AT,
          response_comment: 'ok',
          modified_params: { amount: 400 },
        },
      },
    ],
    [
      'rejects, explaining who and how when no comment is given',
      {
        kind: 'respond',
        input: {
          decision: 'rejected',
          response_kind: 'request_changes',
          responded_by: 'did:web:example.com:bob',
          principal: 'svc',
        },
      },
      request(),
      {
        action: 'approval_rejected',
        reasoning: 'did:web:example.com:bob rejected the request (request_changes; caller svc)',
        event: 'approval.rejected',
        changes: {
          status: 'rejected',
          responded_by: 'did:web:example.com:bob',
          response_kind: 'request_changes',
          responded_at: AT,
        },
      },
    ],
    [
      'is cancelled by a human, with the reason',
      { kind: 'cancel', input: { cancelled_by: 'did:web:example.com:alice', principal: 'svc', reason: 'not needed' } },
      request(),
      {
        step_id: 'cancelled',
        actor: { type: 'human', did: 'did:web:example.com:alice' },
        reasoning: 'not needed',
        event: 'approval.cancelled',
        changes: {
          status: 'cancelled',
          cancelled_by: 'did:web:example.com:alice',
          responded_at: AT,
          cancel_reason: 'not needed',
        },
      },
    ],
    [
      'is cancelled with the execution that asked',
      { kind: 'workflow_cancelled' },
      request({ execution_id: 'exe_1' }),
      {
        step_id: 'cancelled',
        actor: core,
        reasoning: 'The workflow was cancelled',
        changes: {
          status: 'cancelled',
          cancelled_by: ORCH_CORE_DID,
          cancel_reason: 'exe_1 was cancelled',
          responded_at: AT,
        },
      },
    ],
    [
      'is cancelled in Temporal',
      { kind: 'workflow_cancelled' },
      request(),
      { changes: expect.objectContaining({ cancel_reason: 'cancelled in Temporal' }) },
    ],
    [
      'expires with no answer by its deadline',
      { kind: 'expired' },
      request(),
      {
        step_id: 'expired',
        actor: core,
        action: 'approval_expired',
        reasoning: 'No answer by 2026-11-24T10:00:00.000Z',
        event: 'approval.expired',
        changes: { status: 'expired' },
      },
    ],
  ])('%s', (_behaviour, ending, asked, expected) => {
    expect(endedTransition(asked, ending, AT)).toMatchObject(expected);
  });

  it('records the whole request as input and the state’s answer in the event', () => {
    const asked = { ...request(), request_data: { amount: 500 } };
    const approved: ApprovalFacts = {
      ...asked,
      status: 'approved',
      responded_by: 'did:web:example.com:bob',
      modified_params: { amount: 400 },
    };
    const transition = endedTransition(
      asked,
      {
        kind: 'respond',
        input: {
          decision: 'approved',
          response_kind: 'approved',
          responded_by: 'did:web:example.com:bob',
          principal: 'svc',
        },
      },
      AT,
    );
    expect(approvalRecord(asked, approved, transition, AT)).toEqual({
      entry: expect.objectContaining({
        subject_id: 'apr_1',
        step_id: 'responded',
        timestamp: AT,
        input_data: asked,
        output_data: { status: 'approved', ...transition.changes },
      }),
      events: [
        {
          event: 'approval.approved',
          data: expect.objectContaining({
            approval_id: 'apr_1',
            status: 'approved',
            responded_by: 'did:web:example.com:bob',
            modified_params: { amount: 400 },
            execution_id: null,
          }),
        },
      ],
    });
  });
});

describe('what an approval request refuses', () => {
  const deadline = Date.parse('2026-11-24T10:00:00.000Z');
  it.each([
    ['takes an answer while pending, before the deadline', 'pending', false, deadline - 1, undefined],
    ['refuses a second answer under way', 'pending', true, deadline - 1, 'Approval apr_1 is already being answered'],
    ['refuses an answer once answered', 'approved', false, deadline - 1, 'Approval apr_1 is approved, not pending'],
    [
      'refuses an answer at the deadline, before its timer fired',
      'pending',
      false,
      deadline,
      'Approval apr_1 expired at 2026-11-24T10:00:00.000Z',
    ],
  ] as const)('%s', (_behaviour, status, answering, now, refusal) => {
    expect(answerRefusal({ ...request(), status }, answering, now, deadline)).toBe(refusal);
  });
});
