import type { Principal } from '../scopes';
import { verifyDelegationToken, type DelegationClaims } from '../issuance/delegation-tokens';
import type { DelegationDeps } from './context';
import { delegationGrantOf } from './grant';

/** A delegation token's claims when its signature holds and neither it nor any delegation above it is revoked. */
export async function verifyUnrevoked(
  deps: DelegationDeps,
  token: string,
): Promise<{ ok: true; claims: DelegationClaims } | { ok: false; reason: string }> {
  const verified = await verifyDelegationToken(deps, token);
  if (!verified.ok) return verified;
  const revocation = await deps.revocations.check(verified.claims.token_id, verified.claims.chain);
  if (revocation.state === 'revoked')
    return {
      ok: false,
      reason:
        revocation.which === 'token' ? 'The delegation token has been revoked' : 'The delegation has been revoked',
    };
  // Fail closed: a token whose revocation this instance cannot confirm is not accepted.
  if (revocation.state === 'unknown')
    return {
      ok: false,
      reason: 'Whether the delegation token is revoked cannot be confirmed right now; retry shortly',
    };
  return verified;
}

/** The principal of a delegation token: the delegator's Passport and organization, the token's capabilities. */
export async function authenticateDelegationToken(
  deps: DelegationDeps,
  token: string,
): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }> {
  const verified = await verifyUnrevoked(deps, token);
  if (!verified.ok) return verified;
  const { claims } = verified;
  return {
    ok: true,
    principal: {
      id: `dlg:${claims.delegation_id}`,
      kind: 'delegation_token',
      subject: claims.agent_did ?? claims.did,
      scopes: claims.capabilities,
      organization_id: claims.organization_id,
      actor: {
        passport_id: claims.passport_id,
        did: claims.did,
        credential: claims.credential,
        ...(claims.agent_did !== null ? { agent_id: claims.agent_did } : {}),
        delegation: delegationGrantOf(claims),
      },
    },
  };
}
