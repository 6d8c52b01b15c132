import type { Knex } from 'knex';
import { appendProvenance } from '../../db/ledger';
import { putSafetyDomain, type SafetyDomainRow } from '../../db/safety';
import type { RiskThresholds } from '../../domain/routing/risk';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import type { Boundary } from '../../domain/safety/boundaries';
import type { Principal } from '../identity/scopes';
import { recordedBy } from '../identity/authentication/recorded-by';

/** Domain names repeat across organizations; the default organization's keep the subject they always had. */
function safetyConfigSubject(organizationId: string, domain: string): string {
  return organizationId === DEFAULT_ORGANIZATION_ID
    ? `safety_config:${domain}`
    : `safety_config:${organizationId}:${domain}`;
}

/** Creates or replaces a domain's safety configuration, with its provenance record, in one transaction. */
export async function putDomainConfig(
  db: Knex,
  config: { domain: string; boundaries: Boundary[]; risk_thresholds: RiskThresholds; task_types: string[] },
  principal: Principal,
): Promise<SafetyDomainRow> {
  return db.transaction(async (trx) => {
    const row = await putSafetyDomain(trx, principal.organization_id, { ...config, updated_by: principal.id });
    await appendProvenance(trx, {
      entry: {
        subject_id: safetyConfigSubject(principal.organization_id, config.domain),
        step_id: `v${row.version}`,
        timestamp: row.updated_at.toISOString(),
        actor: recordedBy(principal),
        action: 'safety_config_changed',
        input_data: { ...config },
        output_data: { version: row.version },
        reasoning: `${principal.id} set ${config.boundaries.length} boundaries and thresholds ${JSON.stringify(config.risk_thresholds)} for ${config.domain}`,
      },
      organization_id: principal.organization_id,
    });
    return row;
  });
}
