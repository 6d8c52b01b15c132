import type { Knex } from 'knex';
import type { RiskThresholds } from '../domain/risk';
import type { Boundary, DomainSafetyConfig } from '../domain/safety';

export interface SafetyDomainRow extends DomainSafetyConfig {
  version: number;
  updated_by: string;
  updated_at: Date;
}

const COLUMNS = ['domain', 'boundaries', 'risk_thresholds', 'task_types', 'version', 'updated_by', 'updated_at'];

export async function listSafetyDomains(db: Knex): Promise<SafetyDomainRow[]> {
  const rows: unknown = await db('safety_domains').select(COLUMNS).orderBy('domain');
  return rows as SafetyDomainRow[];
}

export async function findSafetyDomain(db: Knex, domain: string, options: { forUpdate?: boolean } = {}): Promise<SafetyDomainRow | undefined> {
  const query = db('safety_domains').select(COLUMNS).where({ domain });
  if (options.forUpdate) query.forUpdate();
  const row: unknown = await query.first();
  return row as SafetyDomainRow | undefined;
}

/** Creates the domain's configuration or replaces it, one version up. */
export async function putSafetyDomain(
  db: Knex,
  config: { domain: string; boundaries: Boundary[]; risk_thresholds: RiskThresholds; task_types: string[]; updated_by: string },
): Promise<SafetyDomainRow> {
  const values = {
    boundaries: JSON.stringify(config.boundaries),
    risk_thresholds: JSON.stringify(config.risk_thresholds),
    task_types: config.task_types,
    updated_by: config.updated_by,
  };
  const [row] = await db('safety_domains')
    .insert({ domain: config.domain, ...values })
    .onConflict('domain')
    .merge({ ...values, version: db.raw('safety_domains.version + 1'), updated_at: db.fn.now() })
    .returning<SafetyDomainRow[]>(COLUMNS);
  return row!;
}

export interface SafetyCheckRow {
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
