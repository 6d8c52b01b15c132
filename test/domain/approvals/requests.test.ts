import {
  escalationResponse,
  paramsSchemaOf,
  selfAnswerRefusal,
  simpleResponse,
  type ApprovalAnswerer,
  type ApprovalMaker,
} from '../../../domain/approvals/requests';
import { judgeAgentAnswer, judgeCallbackAnswer, resultObject } from '../../../domain/executions/outbound-answers';

describe('answers to an approval request', () => {
  it.each([
    [{ decision: 'approve' }, { decision: 'approved', response_kind: 'approve' }],
    [
      { decision: 'reject', notes: 'no' },
      { decision: 'rejected', response_kind: 'reject', comment: 'no' },
    ],
    [
      { decision: 'request_changes', notes: 'split it' },
      { decision: 'rejected', response_kind: 'request_changes', comment: 'split it' },
    ],
    [
      { decision: 'approved_with_modifications', modifications: '{"amount":5}' },
      { decision: 'approved', response_kind: 'approved_with_modifications', modified_params: { amount: 5 } },
    ],
  ] as const)('maps the escalation queue’s %j', (input, response) => {
    expect(escalationResponse(input)).toEqual({ ok: true, response: expect.objectContaining(response) });
  });

  it.each([
    [{ decision: 'approved_with_modifications' }, 'is required'],
    [{ decision: 'approved_with_modifications', modifications: '[1]' }, 'JSON object'],
    [{ decision: 'approved_with_modifications', modifications: 'nope' }, 'JSON object'],
    [{ decision: 'approve', modifications: '{}' }, 'only for approved_with_modifications'],
  ] as const)('refuses %j', (input, message) => {
    expect(escalationResponse(input)).toEqual({
      ok: false,
      field: 'modifications',
      message: expect.stringContaining(message),
    });
  });

  it('maps the simplified variant', () => {
    expect(simpleResponse('reject', 'why not')).toEqual({
      decision: 'rejected',
      response_kind: 'reject',
      comment: 'why not',
    });
  });

  it('derives a schema from request_data: its own keys, their JSON types, nothing else', () => {
    expect(paramsSchemaOf({ amount: 10, rate: 0.5, note: 'x', tags: [], meta: {}, gone: null, ok: true })).toEqual({
      type: 'object',
      properties: {
        amount: { type: 'number' },
        rate: { type: 'number' },
        note: { type: 'string' },
        tags: { type: 'array' },
        meta: { type: 'object' },
        gone: { type: 'null' },
        ok: { type: 'boolean' },
      },
      additionalProperties: false,
    });
  });
});

describe('what an outbound answer means', () => {
  it.each([
    [{ status: 200 }, 'success'],
    [{ status: 202 }, 'success'],
    [{ status: 500 }, 'retry'],
    [{ status: 503 }, 'retry'],
    [{ status: 429 }, 'retry'],
    [{ status: 408 }, 'retry'],
    [{ status: 400 }, 'give_up'],
    [{ status: 404 }, 'give_up'],
    [{ status: 301 }, 'give_up'],
    [{ error: 'ECONNREFUSED' }, 'retry'],
    [{ error: 'private', refused: true }, 'give_up'],
  ])('an agent answering %j: %s', (answer, kind) => expect(judgeAgentAnswer(answer).kind).toBe(kind));

  it.each([
    [{ status: 204 }, 'success'],
    [{ status: 400 }, 'retry'],
    [{ status: 500 }, 'retry'],
    [{ status: 410 }, 'give_up'],
    [{ refused: true }, 'give_up'],
    [{}, 'retry'],
  ])('a callback receiver answering %j: %s', (answer, kind) => expect(judgeCallbackAnswer(answer).kind).toBe(kind));

  it.each([
    [{ summary: 'x' }, { summary: 'x' }],
    [[1, 2], { result: [1, 2] }],
    ['text', { result: 'text' }],
    [undefined, {}],
  ])('keeps %j as result_json %j', (body, result) => expect(resultObject(body)).toEqual(result));
});

describe('separation of duties: nobody answers a request of their own', () => {
  const approval = {
    approval_id: 'apr_1',
    requester_passport_id: 'did:web:example.com:alice',
    requested_by: 'passport:pp_maker',
  };
  const maker: ApprovalMaker = { principal_id: 'passport:pp_maker', passport_id: 'pp_maker' };
  const bob: ApprovalAnswerer = {
    principal_id: 'passport:pp_bob',
    passport_id: 'pp_bob',
    did: 'did:web:example.com:bob',
  };
  it.each<[string, boolean, ApprovalMaker, ApprovalAnswerer]>([
    [
      'the requester the request names, signed in',
      true,
      maker,
      { principal_id: 'passport:pp_alice', passport_id: 'pp_alice', did: 'did:web:example.com:alice' },
    ],
    [
      'the requester named by Passport id',
      true,
      { principal_id: 'sub:x' },
      { ...bob, passport_id: 'did:web:example.com:alice' },
    ],
    [
      'an agent holding the requester’s delegation',
      true,
      maker,
      {
        principal_id: 'dlg:d1',
        passport_id: 'pp_alice',
        did: 'did:web:example.com:alice',
        agent_did: 'did:web:example.com:agents:a',
      },
    ],
    [
      'the agent named as the requester, under someone else’s delegation',
      true,
      maker,
      { ...bob, principal_id: 'dlg:d2', agent_did: 'did:web:example.com:alice' },
    ],
    ['the credential that made the request', true, { principal_id: 'passport:pp_bob' }, bob],
    [
      'the person who made the request through their delegation',
      true,
      { principal_id: 'dlg:d3', passport_id: 'pp_bob', agent_did: 'did:web:example.com:agents:a' },
      bob,
    ],
    [
      'the agent that made the request, with another person’s delegation',
      true,
      { principal_id: 'dlg:d3', passport_id: 'pp_carol', agent_did: 'did:web:example.com:agents:a' },
      { ...bob, principal_id: 'dlg:d4', agent_did: 'did:web:example.com:agents:a' },
    ],
    ['another person', false, maker, bob],
    [
      'another person’s agent',
      false,
      maker,
      { ...bob, principal_id: 'dlg:d5', agent_did: 'did:web:example.com:agents:b' },
    ],
  ])('%s: refused %s', (_who, refused, by, answerer) => {
    const refusal = selfAnswerRefusal(approval, by, answerer);
    expect(refusal?.code).toBe(refused ? 'requester_may_not_answer' : undefined);
  });
});
