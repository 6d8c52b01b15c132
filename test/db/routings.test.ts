import { findRoutingById, projectRouting, type OpenAssignment } from '../../db/routings';
import type { RoutingTask } from '../../domain/routing-decision';
import type { RoutingState } from '../../contracts/route-task';
import { createTestDatabase, type TestDatabase } from '../support/database';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

const task: RoutingTask = { task_type: 'projection_test', context: {}, ai_agent_id: 'urn:test:agent:1', ai_confidence: 0.5, required_capabilities: [], safety_requirements: {}, escalation_conditions: {} };

function stateAt(routing_id: string, version: number, chain: string[], status: RoutingState['status'] = 'in_progress'): RoutingState {
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

const open = (chain_level: number, reviewer_did: string): OpenAssignment => ({ chain_level, reviewer_did, assigned_at: '2026-11-23T00:00:00.000Z' });

const assignments = async (routingId: string) =>
  (await database.db('reviewer_assignments').where({ routing_id: routingId }).orderBy('chain_level')).map((row: { chain_level: number; reviewer_did: string; released_at: Date | null }) => ({
    chain_level: row.chain_level,
    reviewer_did: row.reviewer_did,
    open: row.released_at === null,
  }));

describe('projectRouting', () => {
  it('moves the open assignment with the chain, releases it on resolution, and ignores a stale or repeated projection entirely', async () => {
    const id = 'rt_projection-1';
    const project = (state: RoutingState, assignment: OpenAssignment | undefined) => projectRouting(database.db, { state, task, requested_by: 'test' }, assignment);

    expect(await project(stateAt(id, 1, ['did:a']), open(1, 'did:a'))).toBe(true);
    expect(await assignments(id)).toEqual([{ chain_level: 1, reviewer_did: 'did:a', open: true }]);

    // Up the chain: the new level is open, the old one released, in the same statement.
    expect(await project(stateAt(id, 2, ['did:a', 'did:b']), open(2, 'did:b'))).toBe(true);
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: true },
    ]);

    // A retry of version 2 and a late version 1 change neither the record nor the load.
    expect(await project(stateAt(id, 2, ['did:a', 'did:b']), open(2, 'did:b'))).toBe(false);
    expect(await project(stateAt(id, 1, ['did:a']), open(1, 'did:a'))).toBe(false);
    expect((await findRoutingById(database.db, id))?.version).toBe(2);
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: true },
    ]);

    // Resolved: nothing stays open.
    expect(await project(stateAt(id, 3, ['did:a', 'did:b'], 'completed'), undefined)).toBe(true);
    expect(await assignments(id)).toEqual([
      { chain_level: 1, reviewer_did: 'did:a', open: false },
      { chain_level: 2, reviewer_did: 'did:b', open: false },
    ]);
    expect((await findRoutingById(database.db, id))?.status).toBe('completed');
  });
});
