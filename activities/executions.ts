import type { Knex } from 'knex';
import { upsertExecutionProjection } from '../db/executions';
import { appendProvenance } from '../db/ledger';
import type { AppendProvenanceInput, LedgerAnchor } from '../domain/provenance/records';
import { createOutboundGuard } from '../lib/outbound/url-guard';
import type { ExecutionState } from '../contracts/execute-agent';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { createInvokeAgent } from './agent-invocation';
import { createDeliverCallback } from './execution-callbacks';
import { withInvalidDataFailures } from './failures';
import type { WorkerSettings } from './settings';

export type { AgentInvocation } from './agent-invocation';
export type { CallbackDelivery } from './execution-callbacks';

/**
 * The execution activities: its transitions and read model here, one attempt of the agent call
 * (agent-invocation), one attempt of the callback (execution-callbacks).
 */
export function createExecutionActivities(deps: { db: Knex; settings: WorkerSettings }) {
  const guard = createOutboundGuard(deps.settings.outbound.policy);

  return withInvalidDataFailures({
    /** One transition of an execution: provenance and events, then the read model with the record's id. */
    async recordExecutionStep(step: {
      provenance: AppendProvenanceInput;
      state: ExecutionState;
      organization_id?: string | undefined;
    }): Promise<LedgerAnchor> {
      const organizationId = step.organization_id ?? DEFAULT_ORGANIZATION_ID;
      const anchor = await appendProvenance(deps.db, { ...step.provenance, organization_id: organizationId });
      await upsertExecutionProjection(deps.db, { ...step.state, provenance_id: anchor.transaction_id }, organizationId);
      return anchor;
    },

    /** Progress between transitions: the read model only. */
    async projectExecution(state: ExecutionState, organizationId?: string): Promise<void> {
      await upsertExecutionProjection(deps.db, state, organizationId ?? DEFAULT_ORGANIZATION_ID);
    },

    invokeAgent: createInvokeAgent({ ...deps, guard }),
    deliverCallback: createDeliverCallback({ ...deps, guard }),
  });
}
