import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ComplianceReportProjection, createComplianceActivities } from '../../activities/compliance';
import type { GenerateComplianceReportInput, ScanCursor } from '../../contracts/generate-compliance-report';
import { tallyRecords, type ComplianceRecord } from '../../domain/provenance/compliance';
import { generateComplianceReportWorkflow } from '../../workflows/generate-compliance-report';
import { sharedWorkflowBundle } from '../support/stack';

type Activities = ReturnType<typeof createComplianceActivities>;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });
});
afterAll(() => env?.teardown());

const decision = (i: number, kind: string): ComplianceRecord => ({
  transaction_id: `tx-${i}`,
  entry: {
    subject_id: `rt_${i}`,
    step_id: 'routing_decision',
    timestamp: '2026-08-01T00:00:00.000Z',
    actor: { type: 'orch_core', did: 'did:x:core' },
    action: 'routing_decided',
    input_data: {},
    output_data: { decision: kind, risk: { level: 'low' } },
    reasoning: 'r',
  },
  domain: 'd',
  task_type: 't',
  sealed: true,
  hash_matches: true,
});

/** A period of seven decisions served three to a page by in-memory activities. */
function activities(fail?: string) {
  const records = Array.from({ length: 7 }, (_, i) => decision(i, i % 2 === 0 ? 'ai_autonomous' : 'escalate_to_human'));
  const projections: ComplianceReportProjection[] = [];
  const scans: Array<ScanCursor | null> = [];
  const implementation: Activities = {
    async scanCompliancePage({ after, page_size, max_violations }) {
      if (fail) throw ApplicationFailure.nonRetryable(fail, 'database_gone');
      scans.push(after);
      const start = after ? after.seq : 0;
      const page = records.slice(start, start + page_size);
      const end = start + page.length;
      return {
        tally: tallyRecords(page, max_violations),
        next: end < records.length ? { recorded_at: '2026-08-01 00:00:00+00', seq: end } : null,
      };
    },
    async latestLedgerSnapshot() {
      return { block_number: 9, tree_size: 42, root_hash: 'root', checkpoint: 'note' };
    },
    async projectComplianceReport(projection) {
      projections.push(projection);
    },
  };
  return { implementation, projections, scans };
}

function input(overrides: Partial<GenerateComplianceReportInput> = {}): GenerateComplianceReportInput {
  const report_id = `rpt_${randomUUID()}`;
  return {
    report_id,
    request: { report_type: 't', period: '2026-Q3', domains: [], include_violations: false },
    requested_by: 'test',
    report_url: `https://handoff.example/v1/orch/compliance/reports/${report_id}`,
    created_at: '2026-10-01T00:00:00.000Z',
    page_size: 3,
    max_violations: 10,
    pages_before_continue_as_new: 2,
    activity_timeout_ms: 10_000,
    ...overrides,
  };
}

async function run<T>(implementation: Activities, work: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `compliance-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await sharedWorkflowBundle(),
    activities: implementation,
  });
  return worker.runUntil(work(taskQueue));
}

describe('generateComplianceReportWorkflow', () => {
  it('adds up the pages of a period across runs (continue-as-new) into one report, projected as generating then ready', async () => {
    const { implementation, projections, scans } = activities();
    const report = await run(implementation, async (taskQueue) => {
      const args = input();
      const handle = await env.client.workflow.start(generateComplianceReportWorkflow, {
        taskQueue,
        workflowId: args.report_id,
        args: [args],
      });
      const result = await handle.result();
      const firstRun = await env.client.workflow.getHandle(args.report_id, handle.firstExecutionRunId).describe();
      expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
      return result;
    });
    expect(scans.map((cursor) => cursor?.seq ?? 0)).toEqual([0, 3, 6]);
    expect(report.summary).toMatchObject({
      total_decisions: 7,
      ai_autonomous_decisions: 4,
      human_oversight_decisions: 3,
      escalation_rate: 0.4286,
    });
    expect(report).toMatchObject({
      records_examined: 7,
      ledger: { tree_size: 42 },
      period_start: '2026-07-01T00:00:00.000Z',
    });
    expect(projections.map((p) => [p.version, p.status])).toEqual([
      [1, 'generating'],
      [2, 'ready'],
    ]);
    expect(projections[1]!.report).toEqual(report);
  });

  it('projects a failed report, with why, when scanning fails for good', async () => {
    const { implementation, projections } = activities('the database is gone');
    await run(implementation, async (taskQueue) => {
      const args = input();
      const handle = await env.client.workflow.start(generateComplianceReportWorkflow, {
        taskQueue,
        workflowId: args.report_id,
        args: [args],
      });
      await expect(handle.result()).rejects.toThrow();
    });
    expect(projections.map((p) => [p.version, p.status])).toEqual([
      [1, 'generating'],
      [2, 'failed'],
    ]);
    expect(projections[1]!.error).toContain('the database is gone');
  });
});
