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
}

/** The issuer and audience every token of this deployment carries. */
export interface TokenSettings {
  issuer: string;
  audience: string;
}
