// The bench worker's workflowsPath: every production workflow, and the floor the routing benchmark compares with.
export * from '../../../workflows';
export { benchFloorWorkflow } from './workflow';
