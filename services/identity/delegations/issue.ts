import { randomUUID } from 'node:crypto';
import { insertDelegation, type DelegationRow } from '../../../db/delegation';
import { DEFAULT_DELEGATION_CAPABILITIES, type RiskLevel } from '../../../domain/identity/capabilities';
import { wideningOf, type DelegationBounds, type Widening } from '../../../domain/identity/delegation-bounds';
import { signDelegationToken } from '../issuance/delegation-tokens';
import { epochSeconds, type DelegationDeps } from './context';
import { boundsOf, claimsOf, type Grant } from './grant';

export interface DelegationRequest {
  capabilities: string[];
  duration_seconds: number;
  environment?: string | undefined;
  risk_level: RiskLevel;
}

export interface IssuedToken {
  token: string;
  token_id: string;
  delegation: DelegationRow;
}

type Refusal =
  | { ok: false; code: 'unauthorized'; detail: string }
  | { ok: false; code: 'delegation_widening'; widening: Widening[] }
  | { ok: false; code: 'verification_tier_too_low' | 'identity_tier_too_low'; required: number; actual: number }
  | { ok: false; code: 'passport_required' | 'agent_delegation_refused' | 'agent_not_found'; detail: string };

export type IssueOutcome = { ok: true; issued: IssuedToken } | Refusal;

/** A delegation made from a grant, no wider than it, and its first token; for an agent when one is named. */
export async function issue(
  deps: DelegationDeps,
  parent: Grant,
  request: DelegationRequest,
  agent: { did: string; agent_id: string } | null,
  at: Date,
): Promise<IssueOutcome> {
  const capabilities = [
    ...new Set(request.capabilities.length > 0 ? request.capabilities : DEFAULT_DELEGATION_CAPABILITIES),
  ];
  const expiresAt = new Date((epochSeconds(at) + request.duration_seconds) * 1000);
  const child: DelegationBounds = {
    capabilities,
    expires_at: epochSeconds(expiresAt),
    environment: request.environment ?? parent.environment,
    risk_level: request.risk_level,
  };
  const widening = wideningOf(boundsOf(parent), child);
  if (widening.length > 0) return { ok: false, code: 'delegation_widening', widening };

  const delegation_id = `dlg_${randomUUID()}`;
  const token_id = `dtk_${randomUUID()}`;
  const delegation: DelegationRow = {
    delegation_id,
    organization_id: parent.organization_id,
    passport_id: parent.passport_id,
    did: parent.did,
    agent_did: agent?.did ?? parent.agent_did,
    agent_id: agent?.agent_id ?? null,
    parent_delegation_id: parent.delegation_id,
    chain: [...parent.chain, delegation_id],
    capabilities,
    environment: child.environment,
    risk_level: request.risk_level,
    verification_tier: parent.verification_tier,
    identity_tier: parent.identity_tier,
    credential_type: parent.credential.type,
    credential_id: parent.credential.id,
    created_at: new Date(epochSeconds(at) * 1000),
    expires_at: expiresAt,
    revoked_at: null,
  };
  const token = { token_id, delegation_id, created_at: delegation.created_at, expires_at: expiresAt };
  if (!(await insertDelegation(deps.db, delegation, token))) {
    return {
      ok: false,
      code: 'unauthorized',
      detail: `The ${parent.credential.type === 'passkey' ? 'passkey' : 'device key'} this delegation would act with is no longer active`,
    };
  }
  const signed = await signDelegationToken(
    deps.keyRing,
    deps.settings,
    claimsOf(delegation, token_id, delegation.created_at),
  );
  return { ok: true, issued: { token: signed, token_id, delegation } };
}
