import type { Knex } from 'knex';
import { findInstallation } from '../../db/installations';
import { insertInvocation, usageDays, usageTotals, type InvocationRow } from '../../db/invocations';
import type { Principal } from '../identity/scopes';

/** The window of the usage statistics, in UTC days ending today. */
export const USAGE_DAYS = 30;

export type InvocationReport = {
  operation: string;
  outcome: 'success' | 'error';
  duration_ms: number;
  error_code?: string | undefined;
  cost_usd?: number | undefined;
};

export type RecordOutcome =
  | { ok: true; invocation: InvocationRow }
  | { ok: false; code: 'installation_not_found' | 'installation_not_active'; detail: string };

/**
 * Records one invocation of an installation of the caller's organization. Only an active installation
 * records: a suspended, pending, failed or uninstalled one is refused with its status in the detail.
 */
export async function recordInvocation(
  db: Knex,
  principal: Principal,
  installationId: string,
  report: InvocationReport,
): Promise<RecordOutcome> {
  const installation = await findInstallation(db, principal.organization_id, installationId);
  if (!installation) return { ok: false, code: 'installation_not_found', detail: `No installation ${installationId}` };
  if (installation.status !== 'active')
    return {
      ok: false,
      code: 'installation_not_active',
      detail: `Installation ${installationId} is ${installation.status}; only an active one records invocations`,
    };
  const invocation = await insertInvocation(db, {
    installation_id: installationId,
    organization_id: principal.organization_id,
    connector_id: installation.connector_id,
    operation: report.operation,
    succeeded: report.outcome === 'success',
    duration_ms: report.duration_ms,
    error_code: report.outcome === 'error' ? (report.error_code ?? null) : null,
    cost_usd: report.cost_usd ?? 0,
  });
  return { ok: true, invocation };
}

/** The installation's last USAGE_DAYS days, totals and one zero-filled entry per UTC day; undefined for another organization's. */
export async function installationUsage(db: Knex, principal: Principal, installationId: string) {
  const installation = await findInstallation(db, principal.organization_id, installationId);
  if (!installation) return undefined;
  const [statistics, days] = await Promise.all([
    usageTotals(db, installationId, USAGE_DAYS),
    usageDays(db, installationId, USAGE_DAYS),
  ]);
  return { installation, statistics, days };
}
