import { ExecutionState } from '../../contracts/aggregates/execution';
import { viewOf } from '../../lib/shape';

/** The state under its resource id, without what only the workflow keeps (version, the principal that asked). */
const execution = viewOf(ExecutionState, { rename: { execution_id: 'id' }, hide: ['version', 'requested_by'] });

/** The view's schema (api/schemas/executions.ts registers it as the Execution component). */
export const executionViewSchema = execution.schema;

/** An execution as the API shows it and as its callback carries it: one shape for both. */
export const executionView = execution.of;
