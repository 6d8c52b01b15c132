import { APPROVAL_WORKFLOW, type ApprovalWorkflow } from '../../contracts/approval';
import { DELIVER_WEBHOOK_WORKFLOW, type DeliverWebhookWorkflow } from '../../contracts/deliver-webhook';
import { DISPATCH_OUTBOX_WORKFLOW, type DispatchOutboxWorkflow } from '../../contracts/dispatch-outbox';
import { EXECUTE_AGENT_WORKFLOW, type ExecuteAgentWorkflow } from '../../contracts/execute-agent';
import {
  GENERATE_COMPLIANCE_REPORT_WORKFLOW,
  type GenerateComplianceReportWorkflow,
} from '../../contracts/generate-compliance-report';
import { REVIEW_ASSET_WORKFLOW, type ReviewAssetWorkflow } from '../../contracts/review-asset';
import { RUN_DAG_WORKFLOW, type RunDagWorkflow } from '../../contracts/run-dag';
import { SEAL_LEDGER_WORKFLOW, type SealLedgerWorkflow } from '../../contracts/seal-ledger';
import { BENCH_FLOOR_WORKFLOW, type BenchFloorWorkflow } from '../../scripts/bench/floor/contract';
import { benchFloorWorkflow } from '../../scripts/bench/floor/workflow';
import * as benchWorkflows from '../../scripts/bench/floor/workflows';
import * as productionWorkflows from '../../workflows';

// Clients start workflows by the contract's name and signature; these bind both to the workflow functions.
const signatures: {
  [APPROVAL_WORKFLOW]: ApprovalWorkflow;
  [EXECUTE_AGENT_WORKFLOW]: ExecuteAgentWorkflow;
  [RUN_DAG_WORKFLOW]: RunDagWorkflow;
  [DELIVER_WEBHOOK_WORKFLOW]: DeliverWebhookWorkflow;
  [DISPATCH_OUTBOX_WORKFLOW]: DispatchOutboxWorkflow;
  [SEAL_LEDGER_WORKFLOW]: SealLedgerWorkflow;
  [GENERATE_COMPLIANCE_REPORT_WORKFLOW]: GenerateComplianceReportWorkflow;
  [REVIEW_ASSET_WORKFLOW]: ReviewAssetWorkflow;
} = productionWorkflows;
const floor: BenchFloorWorkflow = benchFloorWorkflow;
const names = [
  APPROVAL_WORKFLOW,
  EXECUTE_AGENT_WORKFLOW,
  RUN_DAG_WORKFLOW,
  DELIVER_WEBHOOK_WORKFLOW,
  DISPATCH_OUTBOX_WORKFLOW,
  SEAL_LEDGER_WORKFLOW,
  GENERATE_COMPLIANCE_REPORT_WORKFLOW,
  REVIEW_ASSET_WORKFLOW,
] as const;

describe('workflow contracts', () => {
  it.each(names)('the production worker runs %s under its contract name', (name) => {
    expect(typeof (signatures as Record<string, unknown>)[name]).toBe('function');
  });

  it('leaves the benchmark floor out of the production workflows and in the bench worker’s', () => {
    expect(productionWorkflows).not.toHaveProperty(BENCH_FLOOR_WORKFLOW);
    expect(benchWorkflows).toHaveProperty(BENCH_FLOOR_WORKFLOW, floor);
    for (const name of names) expect(benchWorkflows).toHaveProperty(name);
  });
});
