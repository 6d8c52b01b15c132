import {
  dagStats,
  nodesOnCycles,
  planDag,
  rootNodeIds,
  validateDag,
  type DagEdgeShape,
  type DagNodeShape,
  type NodeProgress,
} from '../../../domain/dags/graph';

const node = (id: string, node_type: DagNodeShape['node_type'] = 'agent', condition?: string): DagNodeShape => ({
  id,
  node_type,
  ...(condition ? { condition } : {}),
});
const seq = (from: string, to: string): DagEdgeShape => ({
  id: `${from}-${to}`,
  from_node_id: from,
  to_node_id: to,
  edge_type: 'sequence',
});
const when = (from: string, to: string, condition: string): DagEdgeShape => ({
  id: `${from}-${to}`,
  from_node_id: from,
  to_node_id: to,
  edge_type: 'conditional',
  condition,
});

describe('validateDag', () => {
  it('accepts a diamond with a conditional branch', () => {
    const dag = {
      nodes: [node('a'), node('b'), node('c'), node('d')],
      edges: [seq('a', 'b'), when('a', 'c', 'score > 0.5'), seq('b', 'd'), seq('c', 'd')],
    };
    expect(validateDag(dag)).toEqual([]);
  });

  it.each([
    ['no nodes', { nodes: [], edges: [] }, [{ field: 'nodes', code: 'too_small' }]],
    ['a repeated node id', { nodes: [node('a'), node('a')], edges: [] }, [{ field: 'nodes', code: 'duplicate_id' }]],
    [
      'an edge to a missing node',
      { nodes: [node('a')], edges: [seq('a', 'z')] },
      [{ field: 'edges.0.to_node_id', code: 'unknown_node' }],
    ],
    [
      'a self loop',
      { nodes: [node('a')], edges: [seq('a', 'a')] },
      [
        { field: 'edges.0', code: 'self_loop' },
        { field: 'edges', code: 'cycle' },
      ],
    ],
    [
      'a cycle',
      { nodes: [node('a'), node('b'), node('c')], edges: [seq('a', 'b'), seq('b', 'c'), seq('c', 'b')] },
      [{ field: 'edges', code: 'cycle' }],
    ],
    [
      'two edges between the same nodes',
      { nodes: [node('a'), node('b')], edges: [seq('a', 'b'), { ...when('a', 'b', 'x'), id: 'other' }] },
      [{ field: 'edges.1', code: 'duplicate_edge' }],
    ],
    [
      'a conditional edge without a condition',
      {
        nodes: [node('a'), node('b')],
        edges: [{ id: 'e', from_node_id: 'a', to_node_id: 'b', edge_type: 'conditional' }],
      },
      [{ field: 'edges.0.condition', code: 'required' }],
    ],
    [
      'a conditional edge with a bad condition',
      { nodes: [node('a'), node('b')], edges: [when('a', 'b', 'score >')] },
      [{ field: 'edges.0.condition', code: 'invalid_condition' }],
    ],
    [
      'a sequence edge with a condition',
      { nodes: [node('a'), node('b')], edges: [{ ...seq('a', 'b'), condition: 'x' }] },
      [{ field: 'edges.0.condition', code: 'unexpected' }],
    ],
    [
      'a condition node without a condition',
      { nodes: [node('a', 'condition')], edges: [] },
      [{ field: 'nodes.0.condition', code: 'required' }],
    ],
    [
      'an agent node with a condition',
      { nodes: [node('a', 'agent', 'x')], edges: [] },
      [{ field: 'nodes.0.condition', code: 'unexpected' }],
    ],
  ])('refuses %s', (_name, dag, issues) => {
    expect(validateDag(dag as never)).toEqual(issues.map((issue) => expect.objectContaining(issue)));
  });

  it('names the nodes on a cycle', () => {
    expect(
      nodesOnCycles({
        nodes: [node('a'), node('b'), node('c'), node('d')],
        edges: [seq('a', 'b'), seq('b', 'c'), seq('c', 'b'), seq('c', 'd')],
      }),
    ).toEqual(['b', 'c', 'd']);
  });
});

describe('planDag', () => {
  const diamond = {
    nodes: [node('a'), node('b'), node('c'), node('d')],
    edges: [seq('a', 'b'), seq('a', 'c'), seq('b', 'd'), seq('c', 'd')],
  };
  const at = (
    statuses: Record<string, NodeProgress['status']>,
    outputs: Record<string, Record<string, unknown>> = {},
  ) => Object.fromEntries(Object.entries(statuses).map(([id, status]) => [id, { status, output: outputs[id] }]));

  it('starts the roots first, then both branches in parallel, then the join once both are done', () => {
    expect(rootNodeIds(diamond)).toEqual(['a']);
    expect(planDag(diamond, {})).toEqual({ start: ['a'], skip: [] });
    expect(planDag(diamond, at({ a: 'running' }))).toEqual({ start: [], skip: [] });
    expect(planDag(diamond, at({ a: 'completed' }))).toEqual({ start: ['b', 'c'], skip: [] });
    expect(planDag(diamond, at({ a: 'completed', b: 'completed', c: 'running' }))).toEqual({ start: [], skip: [] });
    expect(planDag(diamond, at({ a: 'completed', b: 'completed', c: 'completed' }))).toEqual({
      start: ['d'],
      skip: [],
    });
  });

  it('takes a conditional edge only when its condition holds for the source’s output, and skips down the untaken branch', () => {
    const dag = {
      nodes: [node('check', 'condition', 'amount > 1000'), node('approve', 'approval'), node('pay'), node('notify')],
      edges: [
        when('check', 'approve', 'result == true'),
        when('check', 'pay', 'result == false'),
        seq('approve', 'notify'),
      ],
    };
    expect(planDag(dag, at({ check: 'completed' }, { check: { result: false } }))).toEqual({
      start: ['pay'],
      skip: ['approve', 'notify'],
    });
    expect(planDag(dag, at({ check: 'completed' }, { check: { result: true } }))).toEqual({
      start: ['approve'],
      skip: ['pay'],
    });
  });

  it('runs a join when at least one incoming edge was taken', () => {
    const dag = {
      nodes: [node('a'), node('b'), node('c'), node('d')],
      edges: [when('a', 'b', 'go'), when('a', 'c', '!go'), seq('b', 'd'), seq('c', 'd')],
    };
    expect(planDag(dag, at({ a: 'completed', b: 'completed', c: 'skipped' }, { a: { go: true } }))).toEqual({
      start: ['d'],
      skip: [],
    });
  });

  it('starts nothing after a failed node', () => {
    expect(planDag(diamond, at({ a: 'failed' }))).toEqual({ start: [], skip: [] });
  });
});

describe('dagStats', () => {
  it('counts each status and averages the durations of finished nodes', () => {
    expect(
      dagStats([
        { status: 'completed', duration_ms: 100 },
        { status: 'failed', duration_ms: 300 },
        { status: 'running', duration_ms: null },
        { status: 'pending' },
        { status: 'skipped' },
      ]),
    ).toEqual({
      total_nodes: 5,
      completed: 1,
      failed: 1,
      running: 1,
      pending: 1,
      skipped: 1,
      total_duration_ms: 400,
      avg_node_duration_ms: 200,
    });
  });

  it('is zero before any node finished', () => {
    expect(dagStats([{ status: 'pending' }])).toMatchObject({ total_duration_ms: 0, avg_node_duration_ms: 0 });
  });
});
