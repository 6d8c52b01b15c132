import type { Client } from '@temporalio/client';
import {
  SEAL_LEDGER_WORKFLOW,
  sealerSettingsSignal,
  type LedgerSealerSettings,
  type SealLedgerWorkflow,
} from '../../contracts/seal-ledger';

/** One sealer per deployment: the task queue names the deployment (tests run many on one Temporal). */
export function ledgerSealerWorkflowId(taskQueue: string): string {
  return `ledger-sealer-${taskQueue}`;
}

/**
 * Starts the ledger's sealer unless it runs, and hands it these settings either way (signal-with-start),
 * so every worker entry can call it at boot and a changed configuration reaches the running sealer.
 */
export async function startLedgerSealer(
  client: Client,
  options: { taskQueue: string; settings: LedgerSealerSettings },
): Promise<string> {
  const workflowId = ledgerSealerWorkflowId(options.taskQueue);
  await client.workflow.signalWithStart<SealLedgerWorkflow, [LedgerSealerSettings]>(SEAL_LEDGER_WORKFLOW, {
    workflowId,
    taskQueue: options.taskQueue,
    args: [{ settings: options.settings }],
    signal: sealerSettingsSignal,
    signalArgs: [options.settings],
  });
  return workflowId;
}
