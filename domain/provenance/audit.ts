import type { ProvenanceEntry } from './records';

/**
 * An audit entry's event_type, from the action its provenance record took. The spec names two
 * (routing_decision, escalation_triggered); the routing's other steps get names in the same style, and
 * actions of other workstreams keep their own names, so the audit log covers every record.
 */
export const AUDIT_EVENT_TYPES: Readonly<Record<string, string>> = {
  // The spec's four decision moments, each a record of its own.
  capability_assessed: 'capability_assessment',
  risk_evaluated: 'risk_evaluation',
  context_analyzed: 'context_analysis',
  routing_decided: 'routing_decision',
  // Up the chain on a timeout, or to a human because an agent or an operator asked.
  escalated: 'escalation_triggered',
  escalated_by_request: 'escalation_triggered',
  reassigned_by_request: 'escalation_triggered',
  routing_resolved: 'routing_resolution',
  routing_expired: 'routing_expired',
};

export function auditEventType(action: string): string {
  return AUDIT_EVENT_TYPES[action] ?? action;
}

/** The actions whose records carry this event type (the inverse of auditEventType). */
export function actionsOfEventType(eventType: string): string[] {
  const mapped = Object.entries(AUDIT_EVENT_TYPES)
    .filter(([, type]) => type === eventType)
    .map(([action]) => action);
  return Object.hasOwn(AUDIT_EVENT_TYPES, eventType) ? mapped : [...mapped, eventType];
}

export interface AuditDetails {
  rule_triggered: string | null;
  risk_level: string | null;
  assigned_to: string | null;
  action: string;
  summary: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
const field = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;

/**
 * The spec's details {rule_triggered, risk_level, assigned_to} from what a record holds: a routing
 * decision names its rule, risk and assignee; an escalation the reviewer it moved to; other records are
 * read by the same field names where they have them. `routingRiskLevel` fills in a routing's risk for
 * the steps after its decision.
 */
export function auditDetails(entry: ProvenanceEntry, routingRiskLevel: string | null): AuditDetails {
  const output = entry.output_data;
  const assigned = field(output, 'assigned_to');
  const ruleTriggered =
    entry.action === 'escalated'
      ? 'reviewer_timeout'
      : entry.action === 'escalated_by_request' || entry.action === 'reassigned_by_request'
        ? 'escalation_requested'
        : entry.action === 'routing_expired'
          ? 'escalation_chain_exhausted'
          : (text(output.rule_triggered) ??
            text(output.reason) ??
            entry.rules_evaluated?.find((rule) => rule.triggered)?.reason ??
            null);
  return {
    rule_triggered: ruleTriggered,
    risk_level: text(field(output.risk, 'level')) ?? text(output.risk_level) ?? routingRiskLevel,
    assigned_to:
      text(field(assigned, 'did')) ??
      text(assigned) ??
      text(output.to_did) ??
      (entry.actor.type === 'human' ? (entry.actor.did ?? null) : null),
    action: entry.action,
    summary: entry.reasoning,
  };
}
