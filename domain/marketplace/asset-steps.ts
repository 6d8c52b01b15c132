import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';

/** The steps of an asset's life the ledger records: its submission, each review step, the conclusion. */
export type AssetStep = 'submitted' | 'review:manifest' | 'review:provenance' | 'review:concluded';

const REASONING: Record<AssetStep, string> = {
  submitted: 'The asset was submitted; its review starts',
  'review:manifest': 'The manifest was checked: JSON Schema, size, semantic version and declared scopes',
  'review:provenance': 'The manifest’s provenance signature was checked against the publisher’s DID document',
  'review:concluded': 'The review concluded: approved with a trust tier, or rejected with its reasons',
};

/**
 * The provenance record of one step of an asset, keyed by the asset and the step so a retried activity
 * appends nothing twice. The submission and the conclusion emit an event (asset.submitted, asset.approved,
 * asset.rejected); the review's checks are records only.
 */
export function assetRecord(
  asset: { asset_id: string; organization_id: string; name: string; asset_type: string },
  step: AssetStep,
  at: string,
  options: { actor?: ProvenanceActor; output?: Record<string, unknown>; event?: AssetEvent } = {},
): AppendProvenanceInput & { organization_id: string } {
  const facts = { asset_id: asset.asset_id, name: asset.name, asset_type: asset.asset_type };
  return {
    organization_id: asset.organization_id,
    entry: {
      subject_id: asset.asset_id,
      step_id: step,
      timestamp: at,
      actor: options.actor ?? { type: 'orch_core', did: ORCH_CORE_DID },
      action: `asset.${step}`,
      input_data: facts,
      output_data: options.output ?? {},
      reasoning: REASONING[step],
    },
    events: options.event ? [{ event: options.event, data: { ...facts, ...options.output } }] : [],
  };
}

export type AssetEvent = 'asset.submitted' | 'asset.approved' | 'asset.rejected';
