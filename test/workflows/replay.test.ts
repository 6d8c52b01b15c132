import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { sharedWorkflowBundle } from '../support/stack';

const HISTORIES = path.join(__dirname, 'histories');

// Recorded histories must replay on today's workflow code: a change that would break running routings
// fails here (re-record only with a versioned change; see scripts/histories/record-histories.ts).
describe('replaying recorded histories', () => {
  const files = readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));

  it('has histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s replays without nondeterminism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
    await expect(
      Worker.runReplayHistory({ workflowBundle: await sharedWorkflowBundle() }, history, file),
    ).resolves.toBeUndefined();
  });
});
