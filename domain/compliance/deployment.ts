/**
 * A deployment's protocol compliance, from facts its tables give (db/deployment-compliance.ts): each
 * invariant is what the facts show, and each comes with the evidence it was read from, so a report can never
 * say more than the data does.
 */
export interface ComplianceFacts {
  human_server_keys: number;
  human_private_keys_held: number;
  humans_without_passkey: number;
  biometric_columns: string[];
}

export interface InvariantCheck {
  name:
    | 'server_side_key_generation'
    | 'private_key_access'
    | 'biometric_binding_hash_used'
    | 'webauthn_required_for_humans';
  value: boolean;
  /** What the value was read from, in words a person can check against the tables. */
  evidence: string;
}

export function invariantChecks(facts: ComplianceFacts): InvariantCheck[] {
  return [
    {
      name: 'server_side_key_generation',
      value: facts.human_server_keys > 0,
      evidence: `${facts.human_server_keys} key(s) of people's Passports made by the service (passport_keys.source <> 'device')`,
    },
    {
      name: 'private_key_access',
      value: facts.human_private_keys_held > 0,
      evidence: `${facts.human_private_keys_held} private key(s) of people's Passports held by the service (sealed_private_key set)`,
    },
    {
      name: 'biometric_binding_hash_used',
      value: facts.biometric_columns.length > 0,
      evidence: facts.biometric_columns.length
        ? `columns holding biometric data: ${facts.biometric_columns.join(', ')}`
        : 'no column of the schema holds biometric data or a hash of it; passkeys keep biometrics on the device',
    },
    {
      name: 'webauthn_required_for_humans',
      value: facts.humans_without_passkey === 0 && facts.human_server_keys === 0,
      evidence: `${facts.humans_without_passkey} active person Passport(s) without a passkey; people's Passports are minted only by a passkey registration`,
    },
  ];
}

export type LedgerSyncStatus = 'synced' | 'behind';

/** device_only when no person's key was made or is held by the service. */
export function humanPassportMinting(checks: readonly InvariantCheck[]): 'device_only' | 'server_assisted' {
  const held = checks.some(
    (check) => (check.name === 'server_side_key_generation' || check.name === 'private_key_access') && check.value,
  );
  return held ? 'server_assisted' : 'device_only';
}

/** The passkey attestation statement formats the registration verifier takes (@simplewebauthn/server). */
export const ATTESTATION_FORMATS = ['none', 'packed', 'fido-u2f', 'android-key', 'android-safetynet', 'tpm', 'apple'];
