import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Knex } from 'knex';
import { findComplianceReport } from '../../db/compliance';
import { COMPLIANCE_CHECKS, quarterRange, type ComplianceReport } from '../../domain/provenance/compliance';
import { renderComplianceReportHtml } from './compliance-html';
import {
  REPORT_ORGANIZATION_MEMO,
  reportIdFor,
  reportUrl,
  requestComplianceReport,
} from '../../services/compliance/reports';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { Problem } from '../problem';
import type { ApiBuilder, Reply } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { z } from '../schemas/zod';

/** How long POST waits for the report before answering 202 with its report_url. */
const REPORT_WAIT_MS = 10_000;
const RETRY_AFTER_SECONDS = 2;

const ComplianceReportRequestSchema = z
  .object({
    report_type: z
      .string()
      .min(1)
      .max(100)
      .openapi({ example: 'quarterly_regulatory', description: 'Your name for the kind of report; recorded in it' }),
    period: z
      .string()
      .refine((value) => quarterRange(value) !== undefined, { message: 'must be a quarter, YYYY-Qn (e.g. 2026-Q3)' })
      .openapi({ example: '2026-Q3' }),
    domains: z
      .array(z.string().min(1).max(200))
      .max(50)
      .default([])
      .openapi({
        description: 'Routings whose context.domain (else task_type) is one of these; empty for all',
        example: ['healthcare'],
      }),
    include_violations: z
      .boolean()
      .default(false)
      .openapi({ description: 'List the records that failed each check (up to 500)' }),
  })
  .strict()
  .openapi('ComplianceReportRequest');

const checkIds = Object.keys(COMPLIANCE_CHECKS) as [
  keyof typeof COMPLIANCE_CHECKS,
  ...Array<keyof typeof COMPLIANCE_CHECKS>,
];

const ComplianceReportSchema = z
  .object({
    report_id: z.string(),
    report_type: z.string(),
    period: z.string(),
    period_start: z.string(),
    period_end: z.string(),
    domains: z.array(z.string()),
    generated_at: z.string(),
    summary: z.object({
      total_decisions: z.number().int().openapi({ description: 'Routing decisions in the period' }),
      human_oversight_decisions: z
        .number()
        .int()
        .openapi({ description: 'Decisions escalated to a human or made in hybrid collaboration' }),
      ai_autonomous_decisions: z.number().int(),
      safety_violations: z.number().int().openapi({
        description:
          'Records where a safety boundary was crossed (a routing whose constraints were not all met, a safety check that refused)',
      }),
      ethical_flags: z.number().int().openapi({
        description: 'Records whose Rule of Threes analysis is not a yes on all three, or whose ethical rule triggered',
      }),
      escalations_triggered: z
        .number()
        .int()
        .openapi({ description: 'Decisions that went to a human plus every later escalation up a chain' }),
      escalation_rate: z.number().openapi({ description: 'Decisions escalated to a human ÷ all decisions' }),
    }),
    compliance_status: z.object({
      hipaa_compliant: z
        .boolean()
        .openapi({ description: 'human_oversight_high_risk, personal_data_minimised and records_sealed passed' }),
      gdpr_compliant: z.boolean().openapi({
        description: 'human_oversight_high_risk (Art. 22) and personal_data_minimised (Art. 5(1)(c)) passed',
      }),
      sox_compliant: z
        .boolean()
        .openapi({ description: 'records_sealed, escalations_concluded and human_decisions_attributed passed' }),
      rule_of_threes_adherence: z
        .number()
        .openapi({ description: 'Share of judged records with no ethical flag (1 when none were judged)' }),
    }),
    checks: z.array(
      z.object({
        check_id: z.enum(checkIds),
        description: z.string(),
        frameworks: z.array(z.enum(['hipaa', 'gdpr', 'sox'])),
        passed: z.boolean(),
        failures: z.number().int(),
      }),
    ),
    recommendations: z.array(z.string()),
    records_examined: z.number().int(),
    ledger: z
      .object({
        block_number: z.number().int(),
        tree_size: z.number().int(),
        root_hash: z.string(),
        checkpoint: z.string(),
      })
      .nullable()
      .openapi({ description: 'The signed checkpoint the report was computed against' }),
    violations: z
      .array(
        z.object({
          check_id: z.enum(checkIds),
          transaction_id: z.string(),
          subject_id: z.string(),
          detail: z.string(),
        }),
      )
      .optional(),
    violations_listed: z.number().int().optional(),
    report_url: z
      .string()
      .openapi({ description: 'GET it for this report as JSON, or as HTML with Accept: text/html or ?format=html' }),
  })
  .openapi('ComplianceReport');

const ReportPendingSchema = z
  .object({
    report_id: z.string(),
    status: z.literal('generating'),
    report_url: z.string(),
    retry_after_seconds: z.number().int(),
  })
  .openapi('ComplianceReportPending');

const ReportFailedSchema = z
  .object({ report_id: z.string(), status: z.literal('failed'), error: z.string() })
  .openapi('ComplianceReportFailed');

const ReportRequestHeadersSchema = z.object({
  'idempotency-key': z
    .string()
    .max(255)
    .optional()
    .openapi({ description: 'A retry with the same key reaches the same report' }),
  prefer: z
    .string()
    .optional()
    .openapi({ description: '`respond-async`: answer 202 at once instead of waiting up to 10 s' }),
});

export interface ComplianceRouteDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  publicBaseUrl: string;
}

const pending = (report_id: string, report_url: string): Reply => ({
  status: 202,
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Location: report_url },
  body: { report_id, status: 'generating', report_url, retry_after_seconds: RETRY_AFTER_SECONDS },
});

function asHtml(report: ComplianceReport): Reply {
  return {
    status: 200,
    text: { contentType: 'text/html; charset=utf-8', content: renderComplianceReportHtml(report) },
  };
}

/** A report workflow of the organization: one started before tenancy has no memo and is the default organization's. */
async function workflowExists(temporal: Client, organizationId: string, reportId: string): Promise<boolean> {
  try {
    const description = await temporal.workflow.getHandle(reportId).describe();
    return (description.memo?.[REPORT_ORGANIZATION_MEMO] ?? DEFAULT_ORGANIZATION_ID) === organizationId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Compliance reports: asked for (generated by a workflow), then read as JSON or HTML once ready. */
export function registerComplianceRoutes(api: ApiBuilder, deps: ComplianceRouteDeps): void {
  const compliance = routeGroup(api, { tags: ['Compliance'], auth: 'orch:admin', rateLimit: 'default' });
  registerReportRequest(compliance, deps);
  registerReportRead(compliance, deps);
}

function registerReportRequest(compliance: RouteGroup, deps: ComplianceRouteDeps): void {
  compliance.route({
    method: 'post',
    path: '/v1/orch/compliance/report',
    operationId: 'createComplianceReport',
    summary: 'Generate a compliance report of a quarter from its provenance records (admin)',
    description:
      'A workflow scans the period’s records page by page. A report ready within 10 s is answered with 201; otherwise 202 with report_url ' +
      '(and Location, Retry-After), where GET serves it once ready. `Prefer: respond-async` (RFC 7240) answers 202 at once. ' +
      'Each compliance flag is derived from the checks listed in the report.',
    request: { body: ComplianceReportRequestSchema, headers: ReportRequestHeadersSchema },
    responses: {
      201: { description: 'The report', schema: ComplianceReportSchema },
      202: { description: 'The report is being generated; GET report_url later', schema: ReportPendingSchema },
    },
    handler: async ({ req, body, principal }) => {
      const report_id = reportIdFor(principal.id, req.get('idempotency-key'));
      const respondAsync = /\brespond-async\b/i.test(req.get('prefer') ?? '');
      const outcome = await requestComplianceReport(deps, {
        report_id,
        request: body,
        requested_by: principal.id,
        organization_id: principal.organization_id,
        waitMs: respondAsync ? 0 : REPORT_WAIT_MS,
        now: new Date(),
      });
      if (!outcome.done) return pending(outcome.report_id, outcome.report_url);
      return { status: 201, headers: { Location: outcome.report.report_url }, body: outcome.report };
    },
  });
}

function registerReportRead(compliance: RouteGroup, deps: ComplianceRouteDeps): void {
  compliance.route({
    method: 'get',
    path: '/v1/orch/compliance/reports/{report_id}',
    operationId: 'getComplianceReport',
    summary: 'A stored compliance report, as JSON or as an HTML page (Accept: text/html or ?format=html)',
    request: {
      params: z.object({ report_id: z.string().regex(/^rpt_[0-9a-f-]{32,36}$/, 'must be a report id (rpt_…)') }),
      query: z.object({ format: z.enum(['json', 'html']).optional() }),
    },
    responses: {
      200: {
        description:
          'The report (or, when its generation failed, why); as an HTML page with Accept: text/html or ?format=html',
        schema: z.union([ComplianceReportSchema, ReportFailedSchema]),
        alternatives: { 'text/html': z.string().openapi({ description: 'The report as a self-contained HTML page' }) },
      },
      202: { description: 'Still being generated', schema: ReportPendingSchema },
      404: { description: 'No such report' },
    },
    handler: async ({ req, params, query, principal }) => {
      const row = await findComplianceReport(deps.db, principal.organization_id, params.report_id);
      const url = reportUrl(deps.publicBaseUrl, params.report_id);
      if (!row) {
        // Started but not yet projected: the workflow knows it.
        if (await workflowExists(deps.temporal, principal.organization_id, params.report_id))
          return pending(params.report_id, url);
        throw new Problem('compliance_report_not_found', `No compliance report ${params.report_id}`);
      }
      if (row.status === 'generating') return pending(row.report_id, url);
      if (row.status === 'failed' || !row.report)
        return { status: 200, body: { report_id: row.report_id, status: 'failed', error: row.error ?? 'unknown' } };
      const html =
        query.format === 'html' ||
        (query.format === undefined && req.accepts(['application/json', 'text/html']) === 'text/html');
      return html ? asHtml(row.report) : { status: 200, body: row.report };
    },
  });
}
