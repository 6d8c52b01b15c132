// Every workflow the production worker runs; the worker bundles this file as its workflowsPath.
export { routeTaskWorkflow } from './route-task';
export { sealLedgerWorkflow } from './seal-ledger';
export { generateComplianceReportWorkflow } from './generate-compliance-report';
export { approvalWorkflow } from './approval';
export { executeAgentWorkflow } from './execute-agent';
export { runDagWorkflow } from './run-dag';
export { deliverWebhookWorkflow } from './deliver-webhook';
export { dispatchOutboxWorkflow } from './dispatch-outbox';
export { recoverPassportWorkflow } from './recover-passport';
export { installConnectorWorkflow } from './install-connector';
export { refreshConnectorTokensWorkflow } from './refresh-connector-tokens';
export { reviewAssetWorkflow } from './review-asset';
