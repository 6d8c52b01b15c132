import {
  approvalOutcome,
  childFailedOutcome,
  conditionOutcome,
  dagEnding,
  dagRecord,
  dagStartedStep,
  executionOutcome,
  finishedNodeChanges,
  nodeFinishedStep,
  nodeInput,
  notRunnableOutcome,
  upstreamOutputs,
} from '../../../domain/dags/steps';
import { ORCH_CORE_DID } from '../../../domain/provenance/records';

const core = { type: 'orch_core', did: ORCH_CORE_DID };
const dag = {
  nodes: [
    { id: 'a', node_type: 'agent' as const },
    { id: 'b', node_type: 'agent' as const },
    { id: 'c', node_type: 'condition' as const, condition: 'score > 0.5' },
  ],
  edges: [
    { id: 'ac', from_node_id: 'a', to_node_id: 'c', edge_type: 'sequence' as const },
    { id: 'bc', from_node_id: 'b', to_node_id: 'c', edge_type: 'sequence' as const },
  ],
};

describe('what a node receives', () => {
  it('gets the outputs of the nodes before it by their ids, an empty object for one without output', () => {
    const outputs: Record<string, Record<string, unknown> | null> = { a: { score: 0.9 }, b: null };
    expect(upstreamOutputs(dag, 'c', (id) => outputs[id] ?? null)).toEqual({ a: { score: 0.9 }, b: {} });
    expect(upstreamOutputs(dag, 'a', () => null)).toEqual({});
  });

  it.each([
    ['keeps a root node’s input as it is', {}, { x: 1 }],
    ['adds the outputs before it under upstream', { a: { y: 2 } }, { x: 1, upstream: { a: { y: 2 } } }],
  ])('%s', (_behaviour, upstream, expected) => {
    expect(nodeInput({ x: 1 }, upstream)).toEqual(expected);
  });
});

describe('how a node ends', () => {
  it.each([
    ['holds on a merged output', 'score > 0.5', { a: { score: 0.9 } }, true],
    ['fails to hold on a merged output', 'score > 0.5', { a: { score: 0.1 } }, false],
    ['reads one node’s output under nodes', 'nodes.b.ok == true', { a: { ok: false }, b: { ok: true } }, true],
  ])('a condition node %s', (_behaviour, condition, upstream, result) => {
    expect(conditionOutcome(condition, upstream)).toEqual({ status: 'completed', output: { result } });
  });

  it.each([
    [
      'completes with the execution’s result',
      { status: 'completed', result_json: { r: 1 } },
      { status: 'completed', output: { r: 1 } },
    ],
    [
      'completes with an empty output when there is no result',
      { status: 'completed' },
      { status: 'completed', output: {} },
    ],
    [
      'fails with the execution’s error',
      { status: 'failed', error_json: { type: 'agent_http_4xx' } },
      { status: 'failed', error: { type: 'agent_http_4xx' } },
    ],
    [
      'fails with the execution’s status when it has no error',
      { status: 'cancelled' },
      { status: 'failed', error: { type: 'execution_cancelled' } },
    ],
  ])('an agent node %s', (_behaviour, execution, outcome) => {
    expect(executionOutcome(execution)).toEqual(outcome);
  });

  it.each([
    [
      'completes with the answer when approved',
      { approval_id: 'apr_1', status: 'approved', responded_by: 'did:web:x:bob' },
      {
        status: 'completed',
        output: { status: 'approved', responded_by: 'did:web:x:bob', comment: null, modified_params: null },
      },
    ],
    [
      'fails when rejected',
      { approval_id: 'apr_1', status: 'rejected' },
      {
        status: 'failed',
        error: { type: 'approval_rejected', approval_id: 'apr_1', message: 'The approval was rejected' },
      },
    ],
    [
      'fails when expired',
      { approval_id: 'apr_1', status: 'expired' },
      {
        status: 'failed',
        error: { type: 'approval_expired', approval_id: 'apr_1', message: 'The approval was expired' },
      },
    ],
  ])('an approval node %s', (_behaviour, approval, outcome) => {
    expect(approvalOutcome(approval)).toEqual(outcome);
  });

  it('fails a node whose child workflow failed, or that has nothing to run', () => {
    expect(childFailedOutcome('boom')).toEqual({
      status: 'failed',
      error: { type: 'child_workflow_failed', message: 'boom' },
    });
    expect(notRunnableOutcome('z')).toEqual({
      status: 'failed',
      error: { type: 'node_not_runnable', message: 'Node z has nothing to run' },
    });
  });

  it.each([
    [
      'sets the output of a completed node',
      { status: 'completed' as const, output: { r: 1 } },
      { status: 'completed', completed_at: 'T', duration_ms: 5, output: { r: 1 } },
    ],
    [
      'sets the error of a failed node',
      { status: 'failed' as const, error: { type: 'x' } },
      { status: 'failed', completed_at: 'T', duration_ms: 5, error: { type: 'x' } },
    ],
  ])('%s', (_behaviour, outcome, changes) => {
    expect(finishedNodeChanges(outcome, 'T', 5)).toEqual(changes);
  });

  it.each([
    [
      'on the agent’s account for an agent node',
      { agent_uri: 'urn:agent:a', passport_id: 'did:web:x:agent' },
      { type: 'ai_agent', agent_id: 'urn:agent:a', did: 'did:web:x:agent' },
    ],
    ['on the core’s account for other nodes', undefined, core],
  ])('records a node’s end %s', (_behaviour, agent, actor) => {
    const node = { id: 'a', node_type: 'agent', node_name: 'Summarize', execution_id: 'exe_1', approval_id: null };
    expect(nodeFinishedStep(node, agent, { status: 'completed', output: { r: 1 } })).toEqual({
      step_id: 'node:a',
      actor,
      action: 'node_completed',
      reasoning: 'agent node a (Summarize) completed',
      output: { node_id: 'a', status: 'completed', execution_id: 'exe_1', approval_id: null, output: { r: 1 } },
    });
  });
});

describe('how a run ends', () => {
  it.each([
    [
      'completes when no node failed',
      [
        { id: 'a', status: 'completed' },
        { id: 'b', status: 'skipped' },
      ],
      { status: 'completed', skip: [], reasoning: 'Every node completed or was skipped', event: 'workflow.completed' },
    ],
    [
      'fails when a node failed, skipping the nodes that never started',
      [
        { id: 'a', status: 'failed' },
        { id: 'b', status: 'completed' },
        { id: 'c', status: 'pending' },
      ],
      {
        status: 'failed',
        skip: ['c'],
        reasoning: 'Node a failed',
        event: 'workflow.failed',
        error: { type: 'node_failed', node_ids: ['a'], message: 'Node a failed' },
      },
    ],
  ] as const)('%s', (_behaviour, nodes, expected) => {
    const ending = dagEnding(nodes);
    expect(ending).toMatchObject({
      status: expected.status,
      skip: expected.skip,
      step: { step_id: 'finished', reasoning: expected.reasoning, event: expected.event },
    });
    expect(ending.error).toEqual('error' in expected ? expected.error : undefined);
    expect(ending.step.output).toMatchObject({
      status: expected.status,
      stats: { pending: 0, total_nodes: nodes.length },
    });
  });

  it('records the run with its counts, and an event with its stats when the step has one', () => {
    const run = { workflow_id: 'wfl_1', name: 'Pipeline', node_count: 2, edge_count: 1 };
    const step = dagStartedStep({ requested_by: 'alice', name: 'Pipeline', node_count: 2 });
    const record = dagRecord(
      run,
      {
        status: 'running',
        nodes: [
          { id: 'a', status: 'running' },
          { id: 'b', status: 'pending' },
        ],
      },
      step,
      'T',
    );
    expect(record.entry).toMatchObject({
      subject_id: 'wfl_1',
      step_id: 'started',
      reasoning: 'alice started Pipeline with 2 nodes',
      input_data: { name: 'Pipeline', nodes: 2, edges: 1 },
      output_data: { status: 'running' },
    });
    expect(record.events).toEqual([
      {
        event: 'workflow.started',
        data: {
          workflow_id: 'wfl_1',
          name: 'Pipeline',
          status: 'running',
          stats: expect.objectContaining({ running: 1, pending: 1 }),
        },
      },
    ]);
    const { event: _event, ...withoutEvent } = step;
    expect(dagRecord(run, { status: 'running', nodes: [] }, withoutEvent, 'T').events).toEqual([]);
  });
});
