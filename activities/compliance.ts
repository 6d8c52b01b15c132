import type { Knex } from 'knex';
import type { ScanCursor } from '../contracts/generate-compliance-report';
import {
  scanComplianceRecords,
  upsertComplianceReport,
  type ComplianceReportProjection,
  type ComplianceScanRow,
} from '../db/compliance';
import { latestCheckpoint } from '../db/ledger-blocks';
import { inDomains, tallyRecords } from '../domain/provenance/compliance';
import type { ComplianceRecord, ComplianceTally, LedgerSnapshot } from '../domain/provenance/compliance-types';
import type { ProvenanceEntry } from '../domain/provenance/records';
import { leafHashOfBody } from '../services/ledger/rfc6962';
import { withInvalidDataFailures } from './failures';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

export type { ComplianceReportProjection };

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/** A scanned row as the tally reads it: its domain and task type, and whether its body still hashes to its leaf. */
function complianceRecordOf(row: ComplianceScanRow): ComplianceRecord {
  const entry = JSON.parse(row.body) as ProvenanceEntry;
  return {
    transaction_id: row.transaction_id,
    entry,
    domain:
      text(row.context_domain) ??
      text(row.task_type) ??
      text(entry.input_data.domain) ??
      text(entry.input_data.task_type),
    task_type: text(row.task_type) ?? text(entry.input_data.task_type),
    sealed: row.sealed,
    hash_matches: leafHashOfBody(row.body).equals(row.leaf_hash),
  };
}

export function createComplianceActivities(deps: { db: Knex }) {
  return withInvalidDataFailures({
    /**
     * Tallies one page of a period's records: each record's body is hashed again and compared with its
     * leaf, so a record edited after sealing fails the report's records_sealed check.
     */
    async scanCompliancePage(input: {
      range: { start: string; end: string };
      domains: string[];
      organization_id?: string | undefined;
      after: ScanCursor | null;
      page_size: number;
      max_violations: number;
    }): Promise<{ tally: ComplianceTally; next: ScanCursor | null }> {
      const rows = await scanComplianceRecords(
        deps.db,
        input.organization_id ?? DEFAULT_ORGANIZATION_ID,
        input.range,
        input.after,
        input.page_size,
      );
      const records = rows.map(complianceRecordOf);
      const last = rows[rows.length - 1];
      return {
        tally: tallyRecords(
          records.filter((record) => inDomains(record, input.domains)),
          input.max_violations,
        ),
        next: rows.length === input.page_size && last ? { recorded_at: last.cursor_at, seq: last.seq } : null,
      };
    },

    async latestLedgerSnapshot(): Promise<LedgerSnapshot | null> {
      const checkpoint = await latestCheckpoint(deps.db);
      if (!checkpoint) return null;
      return {
        block_number: checkpoint.block_number,
        tree_size: checkpoint.tree_size,
        root_hash: checkpoint.root_hash.toString('base64'),
        checkpoint: checkpoint.checkpoint,
      };
    },

    async projectComplianceReport(projection: ComplianceReportProjection): Promise<void> {
      await upsertComplianceReport(deps.db, {
        ...projection,
        organization_id: projection.organization_id ?? DEFAULT_ORGANIZATION_ID,
      });
    },
  });
}
