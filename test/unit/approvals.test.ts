import { escalationResponse, paramsSchemaOf, simpleResponse } from '../../domain/approvals';
import { judgeAgentAnswer, judgeCallbackAnswer, resultObject } from '../../domain/deliveries';

describe('answers to an approval request', () => {
  it.each([
    [{ decision: 'approve' }, { decision: 'approved', response_kind: 'approve' }],
    [{ decision: 'reject', notes: 'no' }, { decision: 'rejected', response_kind: 'reject', comment: 'no' }],
    [{ decision: 'request_changes', notes: 'split it' }, { decision: 'rejected', response_kind: 'request_changes', comment: 'split it' }],
    [{ decision: 'approved_with_modifications', modifications: '{"amount":5}' }, { decision: 'approved', response_kind: 'approved_with_modifications', modified_params: { amount: 5 } }],
  ] as const)('maps the escalation queue’s %j', (input, response) => {
    expect(escalationResponse(input)).toEqual({ ok: true, response: expect.objectContaining(response) });
  });

  it.each([
    [{ decision: 'approved_with_modifications' }, 'is required'],
    [{ decision: 'approved_with_modifications', modifications: '[1]' }, 'JSON object'],
    [{ decision: 'approved_with_modifications', modifications: 'nope' }, 'JSON object'],
    [{ decision: 'approve', modifications: '{}' }, 'only for approved_with_modifications'],
  ] as const)('refuses %j', (input, message) => {
    expect(escalationResponse(input)).toEqual({ ok: false, field: 'modifications', message: expect.stringContaining(message) });
  });

  it('maps the simplified variant', () => {
    expect(simpleResponse('reject', 'why not')).toEqual({ decision: 'rejected', response_kind: 'reject', comment: 'why not' });
  });

  it('derives a schema from request_data: its own keys, their JSON types, nothing else', () => {
    expect(paramsSchemaOf({ amount: 10, rate: 0.5, note: 'x', tags: [], meta: {}, gone: null, ok: true })).toEqual({
      type: 'object',
      properties: { amount: { type: 'number' }, rate: { type: 'number' }, note: { type: 'string' }, tags: { type: 'array' }, meta: { type: 'object' }, gone: { type: 'null' }, ok: { type: 'boolean' } },
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
