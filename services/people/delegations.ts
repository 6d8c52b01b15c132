import type { DelegationDeps } from '../identity/delegations/context';
import { delegateToAgent } from '../identity/delegations/exchange';
import type { DelegationRequest, IssueOutcome } from '../identity/delegations/issue';
import type { Principal } from '../identity/scopes';
import { ownPassportAct, type PersonalActRefusal } from './own-passport';

/**
 * The spec's "delegate Passport permissions": the person hands some of what they hold to the agent named by
 * delegateeDID, as the delegation tokens everywhere else are made (delegateToAgent): no wider than the caller's
 * own session or token, revoked with it, and refused for a delegatee that is not an agent of the organization.
 */
export async function delegatePassportPermissions(
  deps: DelegationDeps,
  principal: Principal,
  passportId: string,
  request: DelegationRequest & { delegateeDID: string },
): Promise<IssueOutcome | PersonalActRefusal> {
  const own = await ownPassportAct(deps.db, principal, passportId);
  if (!own.ok) return own;
  const { delegateeDID, ...bounds } = request;
  return delegateToAgent(deps, principal, { ...bounds, agent_id: delegateeDID });
}
