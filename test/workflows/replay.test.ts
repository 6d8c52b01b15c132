import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { sharedWorkflowBundle } from '../support/stack';

const HISTORIES = path.join(__dirname, 'histories');

// Recorded histories must replay on today's workflow code: a change that would break running routings
// fails here (re-record only with a versioned change; see scripts/histories/record-histories.ts).
describe('replaying recorded histories', () => {
  const files = readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));
  const results = new Map<string, ReplayResult>();

  // One replay worker for them all (a worker per history cost a second each), each history its own result.
  beforeAll(async () => {
    const histories = files.map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8'))),
    }));
    const replays = Worker.runReplayHistories({ workflowBundle: await sharedWorkflowBundle() }, histories);
    for await (const result of replays) results.set(result.workflowId, result);
  });

  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s replays without nondeterminism', (file) => {
    expect(results.get(file)).toEqual({ workflowId: file, runId: expect.any(String) });
  });
});
