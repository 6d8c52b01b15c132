import { ORCH_CORE_DID, type AppendProvenanceInput, type ProvenanceActor } from '../provenance/records';
import type { EventKind } from '../provenance/events';

/** What an installation's record and event say about it: never a token, a code or a state. */
export interface InstallationFacts {
  installation_id: string;
  organization_id: string;
  connector_id: string;
  attempt: number;
  status: string;
  status_reason: string | null;
  version: number;
}

const REASONING: Record<InstallationStep, string> = {
  'installation.activated': 'The installation is active: its connector needs no consent, or the provider issued tokens',
  'installation.authorization_failed': 'The install attempt ended without tokens',
  'installation.needs_reauth': 'The provider refused the refresh token; the person must consent again',
  'installation.reconnected': 'The person consented again; the installation is active with new tokens',
  'installation.uninstalled': 'The installation was uninstalled; its provider tokens were revoked and deleted',
};

export type InstallationStep = Extract<EventKind, `installation.${string}`>;

/**
 * The provenance record and event of one installation step, keyed by the installation, its version and the
 * step, so an activity's retry appends nothing twice. `extra` adds to the event (a reconnect link).
 */
export function installationRecord(
  step: InstallationStep,
  installation: InstallationFacts,
  at: string,
  options: { actor?: ProvenanceActor; extra?: Record<string, unknown> } = {},
): AppendProvenanceInput & { organization_id: string } {
  const facts = {
    installation_id: installation.installation_id,
    connector_id: installation.connector_id,
    attempt: installation.attempt,
    status: installation.status,
    status_reason: installation.status_reason,
  };
  return {
    organization_id: installation.organization_id,
    entry: {
      subject_id: installation.installation_id,
      step_id: `${step}:${installation.version}`,
      timestamp: at,
      actor: options.actor ?? { type: 'orch_core', did: ORCH_CORE_DID },
      action: step,
      input_data: { attempt: installation.attempt },
      output_data: facts,
      reasoning: REASONING[step],
    },
    events: [{ event: step, data: { ...facts, ...options.extra } }],
  };
}
