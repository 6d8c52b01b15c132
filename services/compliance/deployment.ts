import { CompactSign } from 'jose';
import type { Knex } from 'knex';
import { keyCustodyFacts } from '../../db/deployment-compliance';
import { ledgerSealingLag } from '../../db/ledger';
import {
  ATTESTATION_FORMATS,
  humanPassportMinting,
  invariantChecks,
  type InvariantCheck,
  type LedgerSyncStatus,
} from '../../domain/compliance/deployment';
import { SIGNING_ALGORITHM, type KeyRing } from '../identity/issuance/key-ring';

export interface DeploymentComplianceDeps {
  db: Knex;
  keyRing: KeyRing;
  settings: {
    /** The token issuer: the deployment's id, whose /.well-known/jwks.json verifies the signature. */
    issuer: string;
    publicBaseUrl: string;
    ledgerSealingLagAlertSeconds: number;
  };
}

/** The JOSE typ of a signed compliance document: no token verifier takes one for a credential. */
export const COMPLIANCE_JWS_TYPE = 'deployment-compliance+jws';
export const PROTOCOL_VERSION = '1.0';

/** The document signed with the deployment's current key, as a compact JWS whose payload is the document. */
export async function signDocument(keyRing: KeyRing, document: Record<string, unknown>): Promise<string> {
  const { kid, privateKey } = await keyRing.signingKey();
  return new CompactSign(new TextEncoder().encode(JSON.stringify(document)))
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: COMPLIANCE_JWS_TYPE, kid })
    .sign(privateKey);
}

async function ledgerSync(deps: DeploymentComplianceDeps) {
  const lag = await ledgerSealingLag(deps.db);
  const age = lag.oldest_unsealed_age_seconds ?? 0;
  const status: LedgerSyncStatus = age > deps.settings.ledgerSealingLagAlertSeconds ? 'behind' : 'synced';
  return { status, lag };
}

const invariantsOf = (checks: InvariantCheck[]) =>
  Object.fromEntries(checks.map((check) => [check.name, check.value])) as Record<InvariantCheck['name'], boolean>;

/** Protocol compliance: every figure read now from this deployment's tables, every invariant checked, signed. */
export async function protocolCompliance(deps: DeploymentComplianceDeps) {
  const [facts, ledger] = await Promise.all([keyCustodyFacts(deps.db), ledgerSync(deps)]);
  const checks = invariantChecks(facts);
  const document = {
    deployment_id: deps.settings.issuer,
    protocol_version: PROTOCOL_VERSION,
    compliance: {
      human_passport_minting: humanPassportMinting(checks),
      attestation_formats_accepted: ATTESTATION_FORMATS,
      ledger_sync_status: ledger.status,
      passport_count: facts.passport_count,
      verification_count: facts.verification_count,
      last_compliance_check: new Date().toISOString(),
    },
    invariants: invariantsOf(checks),
    invariant_checks: checks,
    ledger: {
      last_sealed_block: ledger.lag.last_sealed_block,
      tree_size: ledger.lag.tree_size,
      unsealed_records: ledger.lag.unsealed_leaves,
    },
    jwks_uri: new URL('/.well-known/jwks.json', deps.settings.publicBaseUrl).toString(),
  };
  return { ...document, signature: await signDocument(deps.keyRing, document) };
}

/** Network verification: who can check this deployment's records from outside, with its real blast radius. */
export async function networkVerification(deps: DeploymentComplianceDeps) {
  const [organizations, passports, ledger] = await Promise.all([
    deps.db('organizations').count({ n: '*' }).first(),
    deps.db('passports').count({ n: '*' }).first(),
    ledgerSync(deps),
  ]);
  const base = deps.settings.publicBaseUrl;
  const link = (path: string) => new URL(path, base).toString();
  const document = {
    deployment_id: deps.settings.issuer,
    network_verification: 'local_only' as const,
    explanation:
      'This deployment keeps its own provenance ledger and verifies its own Passports; no other deployment or ' +
      'witness co-signs its checkpoints. Anyone can check its records from outside with the published keys.',
    mitigations: [
      `Signed ledger checkpoints anyone can fetch and compare over time: ${link('/v1/ledger/checkpoint')} (last sealed block ${ledger.lag.last_sealed_block ?? 'none'}, tree size ${ledger.lag.tree_size})`,
      `Consistency and inclusion proofs: ${link('/v1/ledger/consistency')}, /v1/ledger/records/{transaction_id}/proof`,
      `The log's key: ${link('/v1/ledger/key')}; the deployment's token and document keys: ${link('/.well-known/jwks.json')}`,
      'Passports are did:web documents resolvable by anyone; people’s keys are made on their devices',
    ],
    risks: {
      walled_garden_possible: true,
      blast_radius: `${Number(organizations?.n ?? 0)} organization(s) and ${Number(passports?.n ?? 0)} Passport(s) of this deployment`,
      risk_acceptance:
        'The operator of this deployment accepts that its ledger is witnessed only by those who fetch it',
    },
    recommendations: [
      'Run an external witness that fetches the checkpoint regularly and checks each against the last with a consistency proof',
      'Archive checkpoints outside this deployment (another organization, a transparency log)',
      'Pin the JWKS kid of this document and alert on an unannounced key change',
    ],
    checked_at: new Date().toISOString(),
  };
  return { ...document, signature: await signDocument(deps.keyRing, document) };
}
