/** How one provenance record counts in a compliance tally: by what its kind holds, and the checks it fails. */
import type { ComplianceCheckId } from './compliance-checks';
import type { ComplianceRecord, ComplianceTally, TaskTypeCount } from './compliance-types';
import { readRecord, type RecordReading } from './compliance-kinds';
import { personalDataIn } from './personal-data';
import type { ProvenanceEntry } from './records';

/** Adds counts to a task type's entry (a list, not an object keyed by caller-supplied names). */
export function countTaskType(
  counts: TaskTypeCount[],
  task_type: string,
  add: { decisions: number; escalated: number },
): void {
  const found = counts.find((count) => count.task_type === task_type);
  if (found) {
    found.decisions += add.decisions;
    found.escalated += add.escalated;
  } else counts.push({ task_type, ...add });
}

/** A Rule of Threes judgement in a record: any "good for" that is not a plain yes is a flag. */
function ethicalJudgement(entry: ProvenanceEntry, reading: RecordReading): 'flagged' | 'clear' | undefined {
  const analysis = reading.rule_of_threes;
  const ethicalRules = (entry.rules_evaluated ?? []).filter(
    (rule) => rule.rule_id === 'rule_of_threes' || rule.rule_id.startsWith('ethic'),
  );
  if (!analysis && ethicalRules.length === 0) return undefined;
  const doubtful = analysis
    ? (['good_for_human', 'good_for_humanity', 'good_for_svc'] as const).some(
        (key) => analysis[key] !== undefined && analysis[key] !== true,
      )
    : false;
  return doubtful || ethicalRules.some((rule) => rule.triggered) ? 'flagged' : 'clear';
}

export type Fail = (check_id: ComplianceCheckId, record: ComplianceRecord, detail: string) => void;

/** A decision by its kind and task type, with the oversight check; a record that is no decision may be an escalation. */
function countDecision(tally: ComplianceTally, record: ComplianceRecord, reading: RecordReading, fail: Fail): void {
  const { decision, risk_level } = reading;
  if (!decision) {
    if (reading.escalation) tally.escalations_triggered += 1;
    return;
  }
  tally.total_decisions += 1;
  countTaskType(tally.task_types, record.task_type ?? 'unspecified', {
    decisions: 1,
    escalated: decision === 'escalate_to_human' ? 1 : 0,
  });
  if (decision === 'ai_autonomous') tally.ai_autonomous_decisions += 1;
  if (decision === 'hybrid_collaboration') tally.hybrid_decisions += 1;
  if (decision === 'escalate_to_human') tally.escalated_decisions += 1;
  if (decision !== 'ai_autonomous') tally.escalations_triggered += 1;
  if ((risk_level === 'high' || risk_level === 'critical') && decision === 'ai_autonomous')
    fail('human_oversight_high_risk', record, `a ${risk_level}-risk decision was left to the AI alone`);
}

function countEthics(tally: ComplianceTally, entry: ProvenanceEntry, reading: RecordReading): void {
  const judgement = ethicalJudgement(entry, reading) ?? (reading.decision ? 'clear' : undefined);
  if (judgement) tally.ethical_evaluations += 1;
  if (judgement === 'flagged') tally.ethical_flags += 1;
}

/** The checks a record can fail on its own, in the order its violations are listed. */
function checkRecord(record: ComplianceRecord, reading: RecordReading, fail: Fail): void {
  const { entry } = record;
  const found = personalDataIn(JSON.stringify(entry));
  if (found.length > 0) fail('personal_data_minimised', record, `the record holds ${found.join(', ')}`);
  if (!record.sealed) fail('records_sealed', record, 'the record is not sealed into a signed checkpoint yet');
  else if (!record.hash_matches)
    fail('records_sealed', record, 'the stored body no longer hashes to its leaf: it was changed after sealing');
  if (reading.chain_exhausted)
    fail('escalations_concluded', record, 'the escalation chain ran out with no human resolving the routing');
  if (entry.actor.type === 'human' && !entry.actor.did)
    fail('human_decisions_attributed', record, 'a human step names no DID');
}

/** Adds one record to a tally: what its kind counts for, and the checks it fails. */
export function tallyRecord(tally: ComplianceTally, record: ComplianceRecord, fail: Fail): void {
  const reading = readRecord(record.entry.action, record.entry.output_data);
  tally.records += 1;
  countDecision(tally, record, reading, fail);
  if (reading.safety_violation) tally.safety_violations += 1;
  countEthics(tally, record.entry, reading);
  checkRecord(record, reading, fail);
}
