import { findQueuedRoutingIds, findRoutingById, projectRouting, type OpenAssignment } from '../../db/routings';
import type { RoutingTask } from '../../domain/routing/decision';
import type { RoutingState } from '../../contracts/route-task';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

const task: RoutingTask = {
  task_type: 'projection_test',
  context: {},
  ai_agent_id: 'urn:test:agent:1',
  ai_confidence: 0.5,
  required_capabilities: [],
  safety_requirements: {},
  escalation_conditions: {},
};

function stateAt(
  routing_id: string,
  version: number,
  chain: string[],
  status: RoutingState['status'] = 'in_progress',
): RoutingState {
  const at = '2026-11-23T00:00:00.000Z';
  return {
    routing_id,
    version,
    status,
    task_type: task.task_type,
    ai_agent_id: task.ai_agent_id,
    ai_confidence: task.ai_confidence,
    escalation_level: 'low',
    escalation_chain: chain.map((did, index) => ({ level: index + 1, escalation_level: 'low', did, timestamp: at })),
    created_at: at,
    updated_at: at,
  };
}

const open = (chain_level: number, reviewer_did: string): OpenAssignment => ({
  chain_level,
  reviewer_did,
  assigned_at: '2026-11-23T00:00:00.000Z',
});

const assignments = async (routingId: string) =>
  (await database.db('reviewer_assignments').where({ routing_id: routingId }).orderBy('chain_level')).map(
    (row: { chain_level: number; reviewer_did: string; released_at: Date | null }) => ({
      chain_level: row.chain_level,
      reviewer_did: row.reviewer_did,
      open: row.released_at === null,
    }),
  );

describe('projectRouting', () => {
  it('moves the open assignment with the chain, releases it on resolution, and ignores a stale or repeated projection entirely', async () => {
    const id = 'rt_projection-1';
    const project = (state: RoutingState, assignment: OpenAssignment | undefined) =>
      projectRouting(database.db, { state, task, requested_by: 'test' }, assignment);

    expect(await project(stateAt(id, 1, ['did:a']), open(1, 'did:a'))).toMatchObject({ applied: true });
    expect(await assignments(id)).toEqual([{ chain_level: 1, reviewer_did: 'did:a', open: true }]);

    // Up the chain: the new level is open, the old one released, in the same statement.
    expect(await project(stateAt(id, 2, ['did:a', 'did:b']), open(2, 'did:b'))).toEqual({
      applied: true,
      released: ['did:a'],
    });
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: true },
    ]);

    // A retry of version 2 and a late version 1 change neither the record nor the load.
    expect(await project(stateAt(id, 2, ['did:a', 'did:b']), open(2, 'did:b'))).toMatchObject({ applied: false });
    expect(await project(stateAt(id, 1, ['did:a']), open(1, 'did:a'))).toMatchObject({ applied: false });
    expect((await findRoutingById(database.db, DEFAULT_ORGANIZATION_ID, id))?.version).toBe(2);
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: true },
    ]);

    // Resolved: nothing stays open.
    expect(await project(stateAt(id, 3, ['did:a', 'did:b'], 'completed'), undefined)).toEqual({
      applied: true,
      released: ['did:b'],
    });
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: false },
    ]);
    expect((await findRoutingById(database.db, DEFAULT_ORGANIZATION_ID, id))?.status).toBe('completed');
  });
});

describe('findQueuedRoutingIds', () => {
  it('finds the queued routings whose task needs no capability the reviewer lacks, oldest first', async () => {
    const queued = (
      id: string,
      capabilities: string[],
      status: RoutingState['status'] = 'queued',
      at = '2026-11-23T00:00:00.000Z',
    ) =>
      projectRouting(
        database.db,
        {
          state: { ...stateAt(id, 1, [], status), created_at: at },
          task: {
            ...task,
            required_capabilities: capabilities.map((capability_id) => ({ capability_id, min_weight: 0.5 })),
          },
          requested_by: 'test',
        },
        undefined,
      );
    await queued('rt_queue-cardio', ['q_cardiology'], 'queued', '2026-11-23T00:00:02.000Z');
    await queued('rt_queue-both', ['q_cardiology', 'q_surgery'], 'queued', '2026-11-23T00:00:01.000Z');
    await queued('rt_queue-none', [], 'queued', '2026-11-23T00:00:03.000Z');
    await queued('rt_queue-assigned', ['q_cardiology'], 'in_progress');

    expect(await findQueuedRoutingIds(database.db, DEFAULT_ORGANIZATION_ID, ['q_cardiology', 'q_surgery'])).toEqual([
      'rt_queue-both',
      'rt_queue-cardio',
      'rt_queue-none',
    ]);
    expect(await findQueuedRoutingIds(database.db, DEFAULT_ORGANIZATION_ID, ['q_cardiology'])).toEqual([
      'rt_queue-cardio',
      'rt_queue-none',
    ]);
    expect(await findQueuedRoutingIds(database.db, DEFAULT_ORGANIZATION_ID, [])).toEqual(['rt_queue-none']);
  });
});
