import type { DecisionSignature } from '../../../domain/identity/decision-signatures';
import type { Grant } from '../../../contracts/aggregates/delegation';

/**
 * The Passport a credential authenticates, and the credential that did: what the provenance record of a
 * human act names, so that anyone verifying the log sees who decided and with which key or passkey.
 */
export interface Actor {
  passport_id: string;
  did: string;
  credential: { type: 'passkey' | 'device_key' | 'delegation_token'; id: string };
  /** Under a delegation token: the agent acting for the Passport (the delegator). */
  agent_id?: string | undefined;
  /**
   * Present when a delegation token authenticated the call: credential above is then the passkey or device
   * key that signed in the session the token came from, and this names the token and what bounds it.
   */
  delegation?: DelegationGrant;
  /** Set on a decision from the inbox once its passkey signature verified: recorded in the answer's ledger record. */
  decision_signature?: DecisionSignature | undefined;
}

/** The delegation a token belongs to, as its claims carry it (services/identity/issuance/delegation-tokens.ts). */
export type DelegationGrant = Pick<
  Grant,
  'chain' | 'risk_level' | 'environment' | 'verification_tier' | 'identity_tier' | 'expires_at'
> & {
  delegation_id: string;
  token_id: string;
  /** The agent the person delegated to; absent when the person holds the token. */
  agent_did?: string;
};

/** The issuer and audience every token of this deployment carries. */
export interface TokenSettings {
  issuer: string;
  audience: string;
}
