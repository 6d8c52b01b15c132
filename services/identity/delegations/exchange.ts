import { findAgentDid, findPassportForDelegation } from '../../../db/delegation-parties';
import { isDelegationTokenHeader } from '../issuance/delegation-tokens';
import { authenticateSession } from '../issuance/session-tokens';
import type { Principal } from '../scopes';
import { verifyUnrevoked } from './authenticate';
import { now, type DelegationDeps } from './context';
import { grantOf, type Grant } from './grant';
import { issue, type DelegationRequest, type IssueOutcome } from './issue';

export interface ExchangeRequest extends DelegationRequest {
  subject_token: string;
  required_verification_tier?: number | undefined;
  required_identity_tier?: number | undefined;
}

/**
 * RFC 8693-style exchange: a session token (or a delegation token, to narrow it) for a delegation token the
 * person holds. The tiers are those of the sign-in the chain started from and of the Passport.
 */
export async function exchangeForDelegationToken(
  deps: DelegationDeps,
  request: ExchangeRequest,
): Promise<IssueOutcome> {
  const at = now(deps);
  const parent = await subjectGrant(deps, request.subject_token, at);
  if (!parent.ok) return { ok: false, code: 'unauthorized', detail: parent.reason };
  const { grant } = parent;
  if (
    request.required_verification_tier !== undefined &&
    grant.verification_tier < request.required_verification_tier
  ) {
    return {
      ok: false,
      code: 'verification_tier_too_low',
      required: request.required_verification_tier,
      actual: grant.verification_tier,
    };
  }
  if (request.required_identity_tier !== undefined && grant.identity_tier < request.required_identity_tier) {
    return {
      ok: false,
      code: 'identity_tier_too_low',
      required: request.required_identity_tier,
      actual: grant.identity_tier,
    };
  }
  return issue(deps, grant, request, null, at);
}

/** The grant a subject token holds: a live delegation token's claims, or an active Passport's session. */
async function subjectGrant(
  deps: DelegationDeps,
  subjectToken: string,
  at: Date,
): Promise<{ ok: true; grant: Grant } | { ok: false; reason: string }> {
  if (isDelegationTokenHeader(subjectToken)) {
    const verified = await verifyUnrevoked(deps, subjectToken);
    return verified.ok ? { ok: true, grant: verified.claims } : verified;
  }
  const session = await authenticateSession(deps, subjectToken);
  if (!session.ok) return session;
  const passport = await findPassportForDelegation(deps.db, session.session.passport_id);
  if (passport?.status !== 'active') return { ok: false, reason: 'The Passport of this session is not active' };
  return { ok: true, grant: grantOf({ session: session.session, identity_tier: passport.identity_tier, at }) };
}

/** A person's token (or session) delegates to an agent: the agent's token names it in act.sub and holds no more than the parent. */
export async function delegateToAgent(
  deps: DelegationDeps,
  principal: Principal,
  request: DelegationRequest & { agent_id: string },
): Promise<IssueOutcome> {
  const at = now(deps);
  const passport = principal.actor ? await findPassportForDelegation(deps.db, principal.actor.passport_id) : undefined;
  const parent = grantOf({ principal, identity_tier: passport?.identity_tier ?? 0, at });
  if (!parent)
    return {
      ok: false,
      code: 'passport_required',
      detail: 'Only a person’s session or delegation token can delegate to an agent',
    };
  if (parent.agent_did !== null)
    return { ok: false, code: 'agent_delegation_refused', detail: `This token is held by ${parent.agent_did}` };
  const agent = await findAgentDid(deps.db, parent.organization_id, request.agent_id);
  if (!agent)
    return { ok: false, code: 'agent_not_found', detail: `No agent ${request.agent_id} in this organization` };
  return issue(deps, parent, request, agent, at);
}
