import type { Knex } from 'knex';
import type { RiskThresholds } from '../domain/routing/risk';
import type { Boundary, DomainSafetyConfig } from '../domain/safety/boundaries';

export interface SafetyDomainRow extends DomainSafetyConfig {
  version: number;
  updated_by: string;
  updated_at: Date;
}

const COLUMNS = ['domain', 'boundaries', 'risk_thresholds', 'task_types', 'version', 'updated_by', 'updated_at'];

export async function listSafetyDomains(db: Knex, organizationId: string): Promise<SafetyDomainRow[]> {
  const rows: unknown = await db('safety_domains')
    .select(COLUMNS)
    .where({ organization_id: organizationId })
    .orderBy('domain');
  return rows as SafetyDomainRow[];
}

export async function findSafetyDomain(
  db: Knex,
  organizationId: string,
  domain: string,
  options: { forUpdate?: boolean } = {},
): Promise<SafetyDomainRow | undefined> {
  const query = db('safety_domains').select(COLUMNS).where({ organization_id: organizationId, domain });
  if (options.forUpdate) query.forUpdate();
  const row: unknown = await query.first();
  return row as SafetyDomainRow | undefined;
}

/** Creates the domain's configuration or replaces it, one version up. */
export async function putSafetyDomain(
  db: Knex,
  organizationId: string,
  config: {
    domain: string;
    boundaries: Boundary[];
    risk_thresholds: RiskThresholds;
    task_types: string[];
    updated_by: string;
  },
): Promise<SafetyDomainRow> {
  const values = {
    boundaries: JSON.stringify(config.boundaries),
    risk_thresholds: JSON.stringify(config.risk_thresholds),
    task_types: config.task_types,
    updated_by: config.updated_by,
  };
  const [row] = await db('safety_domains')
    .insert({ organization_id: organizationId, domain: config.domain, ...values })
    .onConflict(['organization_id', 'domain'])
    .merge({ ...values, version: db.raw('safety_domains.version + 1'), updated_at: db.fn.now() })
    .returning<SafetyDomainRow[]>(COLUMNS);
  return row!;
}

/** Copies every domain of one organization into another, as version 1 of each. */
export async function copySafetyDomains(
  db: Knex,
  copy: { from: string; to: string; updatedBy: string },
): Promise<void> {
  await db.raw(
    `insert into safety_domains (organization_id, domain, boundaries, risk_thresholds, task_types, version, updated_by, updated_at)
     select ?, domain, boundaries, risk_thresholds, task_types, 1, ?, now() from safety_domains where organization_id = ?`,
    [copy.to, copy.updatedBy, copy.from],
  );
}

export interface SafetyCheckRow {
  organization_id: string;
  boundary_check_id: string;
  agent_id: string | null;
  actor_type: string;
  action: string;
  domain: string;
  allowed: boolean;
  violation_count: number;
  result: Record<string, unknown>;
  requested_by: string;
}

export async function insertSafetyCheck(db: Knex, check: SafetyCheckRow): Promise<void> {
  await db('safety_checks').insert({ ...check, result: JSON.stringify(check.result) });
}
