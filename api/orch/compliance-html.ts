import type { ComplianceReport } from '../../domain/provenance/compliance';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (value: unknown) => String(value).replace(/[&<>"']/g, (char) => ESCAPES[char]!);
const yesNo = (value: boolean) => (value ? '<span class="pass">yes</span>' : '<span class="fail">no</span>');

/** The stored report as a page a person can read (every value escaped: records hold what agents sent). */
export function renderComplianceReportHtml(report: ComplianceReport): string {
  const { summary, compliance_status: status } = report;
  const rows = (pairs: Array<[string, string]>) =>
    pairs.map(([name, value]) => `<tr><th>${escape(name)}</th><td>${value}</td></tr>`).join('');
  const checks = report.checks
    .map(
      (check) =>
        `<tr><td>${escape(check.check_id)}</td><td>${escape(check.description)}</td><td>${escape(check.frameworks.join(', ').toUpperCase())}</td><td>${yesNo(check.passed)}</td><td>${check.failures}</td></tr>`,
    )
    .join('');
  const violations = report.violations
    ? `<h2>Violations (${report.violations_listed ?? report.violations.length} listed)</h2>
<table><tr><th>check</th><th>record</th><th>subject</th><th>detail</th></tr>${report.violations
        .map(
          (v) =>
            `<tr><td>${escape(v.check_id)}</td><td><code>${escape(v.transaction_id)}</code></td><td>${escape(v.subject_id)}</td><td>${escape(v.detail)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Compliance report ${escape(report.period)} — ${escape(report.report_id)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}.pass{color:#176b2c;font-weight:600}.fail{color:#a4161a;font-weight:600}pre{background:#f4f4f4;padding:.8rem;overflow:auto}</style></head>
<body>
<h1>Compliance report: ${escape(report.period)}</h1>
<p>${escape(report.report_type)} · ${report.domains.length > 0 ? `domains ${escape(report.domains.join(', '))}` : 'all domains'} · ${escape(report.period_start)} to ${escape(report.period_end)} · generated ${escape(report.generated_at)} · ${report.records_examined} records examined</p>
<h2>Summary</h2>
<table>${rows([
    ['Decisions', String(summary.total_decisions)],
    ['With human oversight', String(summary.human_oversight_decisions)],
    ['AI autonomous', String(summary.ai_autonomous_decisions)],
    ['Safety boundaries crossed', String(summary.safety_violations)],
    ['Ethical flags', String(summary.ethical_flags)],
    ['Escalations triggered', String(summary.escalations_triggered)],
    ['Escalation rate', `${(summary.escalation_rate * 100).toFixed(1)}%`],
  ])}</table>
<h2>Compliance</h2>
<table>${rows([
    ['HIPAA', yesNo(status.hipaa_compliant)],
    ['GDPR', yesNo(status.gdpr_compliant)],
    ['SOX', yesNo(status.sox_compliant)],
    ['Rule of Threes adherence', `${(status.rule_of_threes_adherence * 100).toFixed(1)}%`],
  ])}</table>
<h2>Checks</h2>
<table><tr><th>check</th><th>what it requires</th><th>for</th><th>passed</th><th>failures</th></tr>${checks}</table>
<h2>Recommendations</h2>
<ul>${report.recommendations.map((line) => `<li>${escape(line)}</li>`).join('')}</ul>
${violations}
<h2>Ledger</h2>
${report.ledger ? `<p>Computed against checkpoint ${report.ledger.block_number} (${report.ledger.tree_size} records). Verify the period's records against it with <code>npm run verify</code>.</p><pre>${escape(report.ledger.checkpoint)}</pre>` : '<p>The ledger had no checkpoint yet.</p>'}
</body></html>
`;
}
