import type { Knex } from 'knex';
import type { ScanCursor } from '../contracts/generate-compliance-report';
import type { ComplianceReport, ComplianceRequest } from '../domain/provenance/compliance-types';

export interface ComplianceScanRow {
  seq: number;
  transaction_id: string;
  body: string;
  leaf_hash: Buffer;
  sealed: boolean;
  task_type: string | null;
  context_domain: string | null;
  /** recorded_at as Postgres prints it (microseconds), for the next page's cursor. */
  cursor_at: string;
}

/** A page of the records of [start, end), in (recorded_at, seq) order, with their routing's task type and domain. */
export async function scanComplianceRecords(
  db: Knex,
  organizationId: string,
  range: { start: string; end: string },
  after: ScanCursor | null,
  limit: number,
): Promise<ComplianceScanRow[]> {
  const query = db('ledger_entries as e')
    .where('e.organization_id', organizationId)
    .leftJoin('ledger_leaves as l', 'l.transaction_id', 'e.transaction_id')
    .leftJoin('routings as r', 'r.routing_id', 'e.subject_id')
    .where('e.recorded_at', '>=', range.start)
    .where('e.recorded_at', '<', range.end)
    .orderBy([{ column: 'e.recorded_at' }, { column: 'e.seq' }])
    .limit(limit)
    .select(
      'e.seq',
      'e.transaction_id',
      'e.body',
      'e.leaf_hash',
      db.raw('l.leaf_index is not null as sealed'),
      'r.task_type',
      db.raw(`r.task -> 'context' ->> 'domain' as context_domain`),
      db.raw('e.recorded_at::text as cursor_at'),
    );
  if (after) query.whereRaw('(e.recorded_at, e.seq) > (?::timestamptz, ?)', [after.recorded_at, after.seq]);
  return query;
}

export type ComplianceReportStatus = 'generating' | 'ready' | 'failed';

export interface ComplianceReportProjection {
  report_id: string;
  version: number;
  status: ComplianceReportStatus;
  request: ComplianceRequest;
  requested_by: string;
  /** Absent in the projections of reports started before tenancy: the default organization's. */
  organization_id?: string | undefined;
  report: ComplianceReport | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ComplianceReportRow extends Omit<ComplianceReportProjection, 'created_at' | 'updated_at'> {
  report_type: string;
  period: string;
  created_at: Date;
  updated_at: Date;
}

/** The report workflow's read model: applied only when newer than what is stored. */
export async function upsertComplianceReport(
  db: Knex,
  projection: ComplianceReportProjection & { organization_id: string },
): Promise<void> {
  const row = {
    report_id: projection.report_id,
    version: projection.version,
    status: projection.status,
    report_type: projection.request.report_type,
    period: projection.request.period,
    request: JSON.stringify(projection.request),
    requested_by: projection.requested_by,
    organization_id: projection.organization_id,
    report: projection.report === null ? null : JSON.stringify(projection.report),
    error: projection.error,
    created_at: projection.created_at,
    updated_at: projection.updated_at,
  };
  const { report_id: _id, created_at: _created, organization_id: _organization, ...changes } = row;
  await db('compliance_reports')
    .insert(row)
    .onConflict('report_id')
    .merge(changes)
    .where('compliance_reports.version', '<', projection.version);
}

export async function findComplianceReport(
  db: Knex,
  organizationId: string,
  reportId: string,
): Promise<ComplianceReportRow | undefined> {
  return db<ComplianceReportRow>('compliance_reports')
    .where('report_id', reportId)
    .andWhere('organization_id', organizationId)
    .first();
}
