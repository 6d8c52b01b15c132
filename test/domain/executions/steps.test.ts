import {
  callbackTransition,
  cancelRefusal,
  executionRecord,
  finishedTransition,
  progressChanges,
  progressRefusal,
  queuedTransition,
  startedTransition,
  type ExecutionEnding,
  type ExecutionFacts,
} from '../../../domain/executions/steps';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';

const execution = (changes: Partial<ExecutionFacts> = {}): ExecutionFacts => ({
  execution_id: 'exe_1',
  status: 'processing',
  agent_id: 'agt_1',
  agent_uri: 'urn:agent:summarizer',
  capability_uri: 'urn:cap:summarize',
  requester_passport_id: 'did:web:example.com:alice',
  parameters: { text: 'hello' },
  current_attempt: 2,
  ...changes,
});
const agent = { agent_uri: 'urn:agent:summarizer', passport_id: 'did:web:example.com:agent' };
const AT = '2026-11-23T10:00:00.000Z';
const core = { type: 'orch_core', did: ORCH_CORE_DID };
const agentActor = { type: 'ai_agent', agent_id: agent.agent_uri, did: agent.passport_id };

describe('the transitions of an execution', () => {
  it('queues with the call in its reasoning and changes nothing', () => {
    expect(queuedTransition(execution({ status: 'queued' }))).toEqual({
      step_id: 'queued',
      actor: core,
      action: 'execution_queued',
      reasoning: 'did:web:example.com:alice called urn:cap:summarize on urn:agent:summarizer',
      event: 'execution.queued',
      changes: {},
    });
  });

  it('starts processing at the given time', () => {
    expect(startedTransition(execution({ status: 'queued' }), AT)).toMatchObject({
      step_id: 'processing',
      event: 'execution.started',
      changes: { status: 'processing', started_at: AT },
    });
  });

  it.each<[string, ExecutionEnding, object]>([
    [
      'cancels, on the core’s account, a call whose approval was rejected',
      { kind: 'not_approved', approval_id: 'apr_1', approval_status: 'rejected' },
      {
        step_id: 'cancelled',
        actor: core,
        event: 'execution.cancelled',
        changes: {
          status: 'cancelled',
          completed_at: AT,
          error_json: {
            type: 'approval_rejected',
            approval_id: 'apr_1',
            message: 'The call was not approved: its approval was rejected',
          },
        },
      },
    ],
    [
      'fails, on the core’s account, a call whose approval failed',
      { kind: 'approval_failed', approval_id: 'apr_1', type: 'invalid_data', message: 'cannot be stored' },
      {
        step_id: 'failed',
        actor: core,
        event: 'execution.failed',
        changes: {
          status: 'failed',
          completed_at: AT,
          error_json: { type: 'invalid_data', approval_id: 'apr_1', message: 'cannot be stored' },
        },
      },
    ],
    [
      'completes, on the agent’s account, with its result at 100 % and the later attempt',
      { kind: 'answered', result: { summary: 'hi' }, attempt: 3 },
      {
        step_id: 'completed',
        actor: agentActor,
        reasoning: 'urn:agent:summarizer answered on attempt 3',
        changes: { status: 'completed', result_json: { summary: 'hi' }, current_attempt: 3, progress_percent: 100 },
      },
    ],
    [
      'keeps the attempt a progress report already moved past',
      { kind: 'answered', result: {}, attempt: 1 },
      { changes: expect.objectContaining({ current_attempt: 2 }) },
    ],
    [
      'cancels on the account of the human who asked, with their reason',
      { kind: 'cancelled', request: { cancelled_by: 'did:web:example.com:bob', reason: 'wrong file' } },
      {
        actor: { type: 'human', did: 'did:web:example.com:bob' },
        reasoning: 'wrong file',
        changes: {
          status: 'cancelled',
          completed_at: AT,
          cancelled_by: 'did:web:example.com:bob',
          cancel_reason: 'wrong file',
        },
      },
    ],
    [
      'cancels on the core’s account when the workflow itself was cancelled',
      { kind: 'cancelled' },
      {
        actor: core,
        reasoning: 'Cancelled by a cancellation of the workflow',
        changes: { status: 'cancelled', completed_at: AT, cancelled_by: ORCH_CORE_DID },
      },
    ],
    [
      'fails with the failure’s type, message and HTTP status',
      { kind: 'failed', type: 'agent_http_4xx', message: 'HTTP 400', attempt: 4, status: 400 },
      {
        step_id: 'failed',
        actor: agentActor,
        reasoning: 'urn:agent:summarizer did not complete the call: HTTP 400',
        changes: {
          status: 'failed',
          completed_at: AT,
          current_attempt: 4,
          error_json: { type: 'agent_http_4xx', message: 'HTTP 400', status: 400 },
        },
      },
    ],
    [
      'fails as agent_call_failed when the failure has no type',
      { kind: 'failed', message: 'timed out' },
      {
        changes: {
          status: 'failed',
          completed_at: AT,
          current_attempt: 2,
          error_json: { type: 'agent_call_failed', message: 'timed out' },
        },
      },
    ],
  ])('%s', (_behaviour, ending, expected) => {
    expect(finishedTransition(execution(), agent, ending, AT)).toMatchObject(expected);
  });

  it.each([
    [{ success: true, attempts: 1 }, 'callback_delivered', 'https://cb.example.com took the result on attempt 1'],
    [
      { success: false, attempts: 5, error: 'HTTP 503' },
      'callback_failed',
      'https://cb.example.com did not take the result in 5 attempts: HTTP 503',
    ],
  ])('records the callback %j without an event', (outcome, action, reasoning) => {
    const transition = callbackTransition('https://cb.example.com', outcome);
    expect(transition).toEqual({
      step_id: 'callback',
      actor: core,
      action,
      reasoning,
      changes: { callback_success: outcome.success, callback_attempts: outcome.attempts },
    });
    expect(executionRecord(execution(), transition, AT).events).toEqual([]);
  });

  it('records the execution as the transition left it, with an event carrying its error', () => {
    const failed = execution({ status: 'failed', error_json: { type: 'x' } });
    const transition = finishedTransition(failed, agent, { kind: 'failed', message: 'no' }, AT);
    expect(executionRecord(failed, transition, AT)).toEqual({
      entry: expect.objectContaining({
        subject_id: 'exe_1',
        step_id: 'failed',
        timestamp: AT,
        input_data: { agent_uri: agent.agent_uri, capability_uri: 'urn:cap:summarize', parameters: { text: 'hello' } },
      }),
      events: [
        {
          event: 'execution.failed',
          data: expect.objectContaining({
            execution_id: 'exe_1',
            status: 'failed',
            task_id: null,
            approval_id: null,
            error: { type: 'x' },
          }),
        },
      ],
    });
  });
});

describe('what an execution refuses', () => {
  it.each([
    ['queued', false, undefined],
    ['processing', false, undefined],
    ['processing', true, 'Execution exe_1 is already being cancelled'],
    ['completed', false, 'Execution exe_1 is completed'],
    ['cancelled', false, 'Execution exe_1 is cancelled'],
  ] as const)('a cancel while %s (cancelling: %s): %s', (status, cancelling, refusal) => {
    expect(cancelRefusal(execution({ status }), cancelling)).toBe(refusal);
  });

  it.each([
    ['processing', false, 2, undefined],
    ['processing', false, 3, undefined],
    ['processing', false, 1, 'Attempt 1 is over; attempt 2 is running'],
    ['processing', true, 2, 'Execution exe_1 is being cancelled, not processing'],
    ['queued', false, 2, 'Execution exe_1 is queued, not processing'],
  ] as const)('progress while %s (cancelling: %s) from attempt %d: %s', (status, cancelling, attempt, refusal) => {
    expect(progressRefusal(execution({ status }), cancelling, attempt)).toBe(refusal);
  });

  it('moves the attempt forward only, and keeps a message only when one is given', () => {
    expect(progressChanges(execution(), { attempt: 1, progress_percent: 40 })).toEqual({
      current_attempt: 2,
      progress_percent: 40,
    });
    expect(progressChanges(execution(), { attempt: 3, progress_percent: 50, progress_message: 'half' })).toEqual({
      current_attempt: 3,
      progress_percent: 50,
      progress_message: 'half',
    });
  });
});
