import type { ComplianceReport, ComplianceRequest, ComplianceTally } from '../domain/provenance/compliance';

/** Where a scan of a period stopped: the last (recorded_at, seq) it returned. */
export interface ScanCursor {
  recorded_at: string;
  seq: number;
}

export interface GenerateComplianceReportInput {
  report_id: string;
  request: ComplianceRequest;
  requested_by: string;
  /** The organization whose records the report covers and to which it belongs; absent (histories from before tenancy): the default one. */
  organization_id?: string | undefined;
  report_url: string;
  created_at: string;
  /** Records per scanning activity. */
  page_size: number;
  /** Violations listed in the report (every one is counted). */
  max_violations: number;
  /** The run continues as new after this many pages, carrying its tally, to bound its history. */
  pages_before_continue_as_new: number;
  activity_timeout_ms: number;
  /** Where a previous run stopped. */
  carried?: { tally: ComplianceTally; after: ScanCursor | null };
}

/** The workflow's type name and signature, so that clients start it without loading workflow code. */
export const GENERATE_COMPLIANCE_REPORT_WORKFLOW = 'generateComplianceReportWorkflow';
export type GenerateComplianceReportWorkflow = (input: GenerateComplianceReportInput) => Promise<ComplianceReport>;
