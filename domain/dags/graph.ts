import { conditionHolds, parseCondition } from './conditions';

/**
 * Workflow DAGs: which shapes are valid, which nodes run next, and the statistics of a run. A node runs
 * once every node before it has finished and at least one incoming edge is taken (a sequence edge from a
 * completed node, or a conditional edge whose condition holds for that node's output); when every incoming
 * edge is settled and none is taken, the node is skipped, and so on down its branch.
 */

export const DAG_NODE_TYPES = ['agent', 'approval', 'condition'] as const;
export type DagNodeType = (typeof DAG_NODE_TYPES)[number];
export const DAG_EDGE_TYPES = ['sequence', 'conditional'] as const;
export type DagEdgeType = (typeof DAG_EDGE_TYPES)[number];
export const DAG_NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'] as const;
export type DagNodeStatus = (typeof DAG_NODE_STATUSES)[number];
export const DAG_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type DagStatus = (typeof DAG_STATUSES)[number];

export interface DagNodeShape {
  id: string;
  node_type: DagNodeType;
  condition?: string | undefined;
}

export interface DagEdgeShape {
  id: string;
  from_node_id: string;
  to_node_id: string;
  edge_type: DagEdgeType;
  condition?: string | undefined;
}

export interface DagShape {
  nodes: DagNodeShape[];
  edges: DagEdgeShape[];
}

export interface DagIssue {
  field: string;
  code: string;
  message: string;
}

export const DAG_LIMITS = { maxNodes: 100, maxEdges: 500 };

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}

/** The nodes that lie on a cycle (Kahn's algorithm leaves them with incoming edges), in declaration order. */
export function nodesOnCycles(dag: DagShape): string[] {
  const incoming = new Map(dag.nodes.map((node) => [node.id, 0]));
  for (const edge of dag.edges) incoming.set(edge.to_node_id, (incoming.get(edge.to_node_id) ?? 0) + 1);
  const queue = dag.nodes.filter((node) => incoming.get(node.id) === 0).map((node) => node.id);
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const edge of dag.edges.filter((e) => e.from_node_id === id)) {
      const left = (incoming.get(edge.to_node_id) ?? 0) - 1;
      incoming.set(edge.to_node_id, left);
      if (left === 0) queue.push(edge.to_node_id);
    }
  }
  return dag.nodes.filter((node) => (incoming.get(node.id) ?? 0) > 0).map((node) => node.id);
}

/**
 * The issue with a node's or an edge's condition, if any: one that needs a condition must have one that
 * parses, and one that does not must have none.
 */
function conditionIssue(
  field: string,
  condition: string | undefined,
  expected: { needed: boolean; required: string; unexpected: string },
): DagIssue | undefined {
  if (!expected.needed)
    return condition === undefined ? undefined : { field, code: 'unexpected', message: expected.unexpected };
  if (!condition) return { field, code: 'required', message: expected.required };
  const parsed = parseCondition(condition);
  return parsed.ok ? undefined : { field, code: 'invalid_condition', message: `the condition ${parsed.error}` };
}

/** Too few or too many nodes, too many edges, and ids used twice. */
function sizeAndIdIssues(dag: DagShape): DagIssue[] {
  const issues: DagIssue[] = [];
  if (dag.nodes.length === 0)
    issues.push({ field: 'nodes', code: 'too_small', message: 'a workflow needs at least one node' });
  if (dag.nodes.length > DAG_LIMITS.maxNodes)
    issues.push({ field: 'nodes', code: 'too_big', message: `at most ${DAG_LIMITS.maxNodes} nodes` });
  if (dag.edges.length > DAG_LIMITS.maxEdges)
    issues.push({ field: 'edges', code: 'too_big', message: `at most ${DAG_LIMITS.maxEdges} edges` });
  for (const id of duplicates(dag.nodes.map((node) => node.id)))
    issues.push({ field: 'nodes', code: 'duplicate_id', message: `node id ${id} is used more than once` });
  for (const id of duplicates(dag.edges.map((edge) => edge.id)))
    issues.push({ field: 'edges', code: 'duplicate_id', message: `edge id ${id} is used more than once` });
  return issues;
}

function nodeIssues(dag: DagShape): DagIssue[] {
  return dag.nodes.flatMap((node, index) => {
    const issue = conditionIssue(`nodes.${index}.condition`, node.condition, {
      needed: node.node_type === 'condition',
      required: 'a condition node needs a condition',
      unexpected: `only condition nodes have a condition, not ${node.node_type} nodes`,
    });
    return issue ? [issue] : [];
  });
}

/** Edges to unknown nodes, self loops, a second edge between the same two nodes, and their conditions. */
function edgeIssues(dag: DagShape, nodeIds: ReadonlySet<string>): DagIssue[] {
  const issues: DagIssue[] = [];
  const pairs = new Set<string>();
  dag.edges.forEach((edge, index) => {
    for (const end of ['from_node_id', 'to_node_id'] as const) {
      if (!nodeIds.has(edge[end]))
        issues.push({
          field: `edges.${index}.${end}`,
          code: 'unknown_node',
          message: `no node has the id ${edge[end]}`,
        });
    }
    if (edge.from_node_id === edge.to_node_id)
      issues.push({
        field: `edges.${index}`,
        code: 'self_loop',
        message: `edge ${edge.id} leads from ${edge.from_node_id} to itself`,
      });
    const pair = `${edge.from_node_id}→${edge.to_node_id}`;
    if (pairs.has(pair))
      issues.push({ field: `edges.${index}`, code: 'duplicate_edge', message: `more than one edge leads ${pair}` });
    pairs.add(pair);
    const issue = conditionIssue(`edges.${index}.condition`, edge.condition, {
      needed: edge.edge_type === 'conditional',
      required: 'a conditional edge needs a condition',
      unexpected: 'a sequence edge has no condition; use edge_type conditional',
    });
    if (issue) issues.push(issue);
  });
  return issues;
}

/** Every reason the DAG cannot run, each naming the field at fault; empty when it can. */
export function validateDag(dag: DagShape): DagIssue[] {
  const nodeIds = new Set(dag.nodes.map((node) => node.id));
  const issues = [...sizeAndIdIssues(dag), ...nodeIssues(dag), ...edgeIssues(dag, nodeIds)];
  // A cycle is only meaningful among edges that reference real nodes.
  const known = {
    nodes: dag.nodes,
    edges: dag.edges.filter((edge) => nodeIds.has(edge.from_node_id) && nodeIds.has(edge.to_node_id)),
  };
  const cyclic = nodesOnCycles(known);
  if (cyclic.length > 0)
    issues.push({ field: 'edges', code: 'cycle', message: `the edges form a cycle through ${cyclic.join(', ')}` });
  return issues;
}

/** Nodes nothing leads to, in declaration order: where a run starts. */
export function rootNodeIds(dag: DagShape): string[] {
  const targets = new Set(dag.edges.map((edge) => edge.to_node_id));
  return dag.nodes.filter((node) => !targets.has(node.id)).map((node) => node.id);
}

export function predecessorIds(dag: DagShape, nodeId: string): string[] {
  return dag.edges.filter((edge) => edge.to_node_id === nodeId).map((edge) => edge.from_node_id);
}

export interface NodeProgress {
  status: DagNodeStatus;
  output?: Record<string, unknown> | undefined;
}

export interface DagPlan {
  /** Nodes to start now. */
  start: string[];
  /** Nodes none of whose incoming edges was taken; they will not run. */
  skip: string[];
}

/**
 * What happens next, given where every node stands: the nodes whose predecessors have all finished and
 * that an edge leads into, and the nodes no edge leads into any more (skips cascade down a branch). Nodes
 * after a failed one wait; the run stops scheduling once a node has failed.
 */
export function planDag(dag: DagShape, progress: Readonly<Record<string, NodeProgress>>): DagPlan {
  const status = new Map(dag.nodes.map((node) => [node.id, progress[node.id]?.status ?? 'pending']));
  const start: string[] = [];
  const skip: string[] = [];
  for (let changed = true; changed;) {
    changed = false;
    for (const node of dag.nodes) {
      if (status.get(node.id) !== 'pending' || start.includes(node.id)) continue;
      const incoming = dag.edges.filter((edge) => edge.to_node_id === node.id);
      if (incoming.length === 0) {
        start.push(node.id);
        continue;
      }
      const sources = incoming.map((edge) => status.get(edge.from_node_id));
      if (!sources.every((s) => s === 'completed' || s === 'skipped')) continue;
      const taken = incoming.some(
        (edge) =>
          status.get(edge.from_node_id) === 'completed' &&
          (edge.edge_type === 'sequence' ||
            conditionHolds(edge.condition ?? '', progress[edge.from_node_id]?.output ?? {})),
      );
      if (taken) start.push(node.id);
      else {
        skip.push(node.id);
        status.set(node.id, 'skipped');
        changed = true;
      }
    }
  }
  return { start, skip };
}

export interface DagStats {
  total_nodes: number;
  completed: number;
  failed: number;
  running: number;
  pending: number;
  skipped: number;
  /** Sum of the durations of the nodes that finished (completed or failed). */
  total_duration_ms: number;
  /** total_duration_ms over the nodes that finished; 0 before any has. */
  avg_node_duration_ms: number;
}

export function dagStats(
  nodes: ReadonlyArray<{ status: DagNodeStatus; duration_ms?: number | null | undefined }>,
): DagStats {
  const count = (status: DagNodeStatus) => nodes.filter((node) => node.status === status).length;
  const finished = nodes.filter(
    (node) => (node.status === 'completed' || node.status === 'failed') && typeof node.duration_ms === 'number',
  );
  const total = finished.reduce((sum, node) => sum + (node.duration_ms ?? 0), 0);
  return {
    total_nodes: nodes.length,
    completed: count('completed'),
    failed: count('failed'),
    running: count('running'),
    pending: count('pending'),
    skipped: count('skipped'),
    total_duration_ms: total,
    avg_node_duration_ms: finished.length === 0 ? 0 : total / finished.length,
  };
}
