import { z } from 'zod';
import { RISK_LEVELS } from '../../domain/identity/capabilities';

/**
 * A delegation: a person's Passport handing some of what it holds to a token (theirs, or an agent's), bounded
 * in capabilities, time, environment and risk, and tied to the passkey or device key the chain was signed in
 * with. Services hold it as the delegations table stores it (db/delegation.ts); the tokens and grants made
 * from it take their fields from here.
 */
export const Delegation = z.object({
  delegation_id: z.string(),
  organization_id: z.string(),
  passport_id: z.string(),
  did: z.string(),
  /** The agent the person delegated to; null when the person holds the tokens. */
  agent_did: z.string().nullable(),
  agent_id: z.string().nullable(),
  parent_delegation_id: z.string().nullable(),
  /** Delegation ids from the root (exchanged from a session) down to this one. */
  chain: z.array(z.string()),
  capabilities: z.array(z.string()),
  environment: z.string().nullable(),
  risk_level: z.enum(RISK_LEVELS),
  verification_tier: z.number().int(),
  identity_tier: z.number().int(),
  credential_type: z.enum(['passkey', 'device_key']),
  credential_id: z.string(),
  created_at: z.date(),
  expires_at: z.date(),
  revoked_at: z.date().nullable(),
});
export type Delegation = z.infer<typeof Delegation>;

/** The passkey or device key a delegation chain was signed in with. */
export interface SignInCredential {
  type: Delegation['credential_type'];
  id: string;
}

/**
 * What a delegation (or a signed-in session) hands down to a delegation made from it: the delegator, the
 * bounds, the chain so far and the sign-in it started from. delegation_id is null for a session (a root).
 */
export type Grant = Pick<
  Delegation,
  | 'organization_id'
  | 'passport_id'
  | 'did'
  | 'agent_did'
  | 'chain'
  | 'capabilities'
  | 'environment'
  | 'risk_level'
  | 'verification_tier'
  | 'identity_tier'
  | 'expires_at'
> & { delegation_id: string | null; credential: SignInCredential };
