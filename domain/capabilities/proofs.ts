/**
 * What a capability proof claims and the checks beside its signature: a proof is a JWT (typ
 * capability-proof+jwt) signed by the key of the Passport that issued the grant, naming the subject, the
 * capability, the grant and the task. The signature is checked against the issuer's DID document; here, the
 * grant's state and the task, each failure with its reason.
 */
export const CAPABILITY_PROOF_TYP = 'capability-proof+jwt';

export interface ProofClaims {
  sub: string;
  cap: string;
  grant_id: string;
  task_id: string | null;
  weight: number;
}

export function proofClaimsOf(payload: Record<string, unknown>): ProofClaims | undefined {
  const { sub, cap, grant_id, task_id, weight } = payload;
  if (typeof sub !== 'string' || typeof cap !== 'string' || typeof grant_id !== 'string') return undefined;
  if (typeof weight !== 'number' || (task_id !== null && typeof task_id !== 'string')) return undefined;
  return { sub, cap, grant_id, task_id, weight };
}

export interface GrantState {
  subject_did: string;
  issuer_did: string;
  revoked_at: string | null;
  expires_at: string | null;
}

export type ProofRefusal =
  'grant_not_found' | 'grant_revoked' | 'grant_expired' | 'subject_mismatch' | 'issuer_mismatch' | 'task_mismatch';

/** Why a proof whose signature verified is still refused, or undefined when it stands. */
export function proofRefusal(
  claims: ProofClaims,
  context: {
    grant: GrantState | undefined;
    issuer_did: string;
    agent_did: string;
    task_id?: string | undefined;
    now: string;
  },
): { code: ProofRefusal; reason: string } | undefined {
  const { grant } = context;
  if (!grant) return { code: 'grant_not_found', reason: `No grant ${claims.grant_id} in your organization` };
  if (grant.issuer_did !== context.issuer_did)
    return { code: 'issuer_mismatch', reason: 'The proof is not signed by the grant’s issuer' };
  if (claims.sub !== context.agent_did || grant.subject_did !== claims.sub)
    return { code: 'subject_mismatch', reason: `The proof is ${claims.sub}’s, not ${context.agent_did}’s` };
  if (grant.revoked_at) return { code: 'grant_revoked', reason: `The grant was revoked at ${grant.revoked_at}` };
  if (grant.expires_at && grant.expires_at <= context.now)
    return { code: 'grant_expired', reason: `The grant expired at ${grant.expires_at}` };
  if (context.task_id !== undefined && claims.task_id !== context.task_id)
    return {
      code: 'task_mismatch',
      reason: `The proof is for task ${claims.task_id ?? '(none)'}, not ${context.task_id}`,
    };
  return undefined;
}
