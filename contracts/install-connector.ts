import { defineSignal } from '@temporalio/workflow';
import type { AuthorizationResult } from '../domain/marketplace/oauth-callback';

/** The workflow's type name and signature, so that clients start and signal it without loading workflow code. */
export const INSTALL_CONNECTOR_WORKFLOW = 'installConnectorWorkflow';

/** One install attempt waiting for the provider's consent; the service recorded it pending_oauth before the start. */
export interface InstallConnectorInput {
  installation_id: string;
  attempt: number;
  /** When the authorization URL stops working (ISO 8601): the workflow's durable timer ends the attempt then. */
  expires_at: string;
}

export type InstallOutcome = 'active' | 'authorization_failed' | 'superseded';

export type InstallConnectorWorkflow = (input: InstallConnectorInput) => Promise<InstallOutcome>;

/** One workflow per attempt: a re-install starts the next and leaves the older one to end as superseded. */
export function installWorkflowId(installationId: string, attempt: number): string {
  return `${installationId}:${attempt}`;
}

/** Sent by GET /v1/oauth/callback once it has claimed the attempt's state (exactly once). */
export const authorizationSignal = defineSignal<[AuthorizationResult]>('authorization');
