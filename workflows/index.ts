// Every workflow the worker runs; the worker bundles this file as its workflowsPath.
export { routeTaskWorkflow } from './route-task';
export { benchFloorWorkflow } from './bench-floor';
export { deliverWebhookWorkflow } from './deliver-webhook';
export { dispatchOutboxWorkflow } from './dispatch-outbox';
