/** The recommendations of a compliance report, each drawn from what its tally found. */
import type { ComplianceRequest, ComplianceTally } from './compliance-types';

const percent = (value: number) => `${Math.round(value * 1000) / 10}%`;

export function recommendationsFor(
  tally: ComplianceTally,
  escalationRate: number,
  request: ComplianceRequest,
): string[] {
  const advice: string[] = [];
  if (tally.total_decisions === 0) {
    advice.push(
      `No routing decisions fall in ${request.period}${request.domains.length > 0 ? ` for ${request.domains.join(', ')}` : ''}: check the period and the domains.`,
    );
  }
  if (tally.total_decisions >= 10 && escalationRate > 0.5) {
    const worst = tally.task_types
      .filter((count) => count.decisions >= 3)
      .sort((x, y) => y.escalated / y.decisions - x.escalated / x.decisions)
      .slice(0, 3)
      .map((count) => `${count.task_type} (${percent(count.escalated / count.decisions)} of ${count.decisions})`);
    advice.push(
      `${percent(escalationRate)} of decisions went to a human${worst.length > 0 ? `; most often for ${worst.join(', ')}` : ''}: review those agents' confidence calibration and capabilities, or staff reviewers for them.`,
    );
  }
  const failures = tally.failures;
  if (failures.human_oversight_high_risk > 0) {
    advice.push(
      `${failures.human_oversight_high_risk} high- or critical-risk decisions were left to the AI alone: add an escalation rule (risk_level >= high) or set human_oversight_required for those tasks.`,
    );
  }
  if (failures.personal_data_minimised > 0) {
    advice.push(
      `${failures.personal_data_minimised} provenance records hold personal data: have agents send DIDs or pseudonymous ids instead of contact details and identifiers. The ledger is append-only, so what was recorded stays; stop it at the source.`,
    );
  }
  if (failures.records_sealed > 0) {
    advice.push(
      `${failures.records_sealed} records are unsealed or no longer match their leaves: check the ledger sealer (the sealing lag in health) and verify an export with npm run verify.`,
    );
  }
  if (failures.escalations_concluded > 0) {
    advice.push(
      `${failures.escalations_concluded} escalations ran out of reviewers: add reviewers higher up the chain for those capabilities or lengthen the escalation timeouts.`,
    );
  }
  if (failures.human_decisions_attributed > 0)
    advice.push(
      `${failures.human_decisions_attributed} human steps name no DID: require reviewers to resolve with their DID.`,
    );
  if (tally.ethical_flags > 0)
    advice.push(`${tally.ethical_flags} records carry a Rule of Threes flag: have a person review them.`);
  if (advice.length === 0) {
    advice.push(
      'Every check passed. Keep an export of the ledger with this report and verify it with npm run verify against the checkpoint the report names.',
    );
  }
  return advice;
}
