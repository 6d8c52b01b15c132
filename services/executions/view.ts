import { ExecutionState } from '../../contracts/aggregates/execution';
import { viewOf } from '../../lib/shape';

/** The state under its resource id, without what only the workflow keeps (version, the principal that asked). */
export const EXECUTION_VIEW = { rename: { execution_id: 'id' }, hide: ['version', 'requested_by'] } as const;

/** An execution as the API shows it and as its callback carries it: one shape for both. */
export const executionView = viewOf(ExecutionState, EXECUTION_VIEW).of;
