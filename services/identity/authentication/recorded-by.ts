import { ORCH_CORE_DID, type ProvenanceActor } from '../../../domain/provenance/records';
import type { Principal } from '../scopes';

/**
 * The provenance actor of a change an API caller made to reference data: the core records it, and names
 * the caller's principal (token, service account or agent) as the instance that asked.
 */
export function recordedBy(principal: Principal): ProvenanceActor {
  return { type: 'orch_core', did: ORCH_CORE_DID, instance_id: principal.id };
}
