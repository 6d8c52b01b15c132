import { allowedValues, isUnsatisfiable, isWithin, overlaps, regionOf, type Region } from './condition-regions';
import { conditionProblem, evaluateConditions, type Condition, type RoutingFacts } from './conditions';
import { ESCALATION_LEVELS, LEVEL_FOR_RISK, type EscalationLevel, type RuleEvaluation } from '../routing/decision';

/**
 * Escalation rules an admin configures. A rule triggers when all its conditions hold; its actions then
 * apply: escalate_to_human (to a reviewer holding target_capability at min_weight, at an urgency) and
 * notify_supervisor (when the routing's escalation level reaches notification_threshold).
 */
export const RULE_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type RulePriority = (typeof RULE_PRIORITIES)[number];

export const URGENCIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Urgency = (typeof URGENCIES)[number];

export interface EscalateAction {
  action: 'escalate_to_human';
  target_capability: string;
  min_weight: number;
  urgency: Urgency;
}

/**
 * What a notify_supervisor action may name: an escalation level, or a risk level (admins think in both).
 * A risk level reads as the escalation level a routing of that risk runs at (LEVEL_FOR_RISK): low, medium
 * and high as themselves, critical as urgent.
 */
export const NOTIFICATION_THRESHOLDS = [...URGENCIES, 'critical'] as const;
export type NotificationThreshold = (typeof NOTIFICATION_THRESHOLDS)[number];

/** The escalation level a notification threshold stands for. */
export function notificationLevel(threshold: NotificationThreshold): Urgency {
  return threshold === 'critical' ? (LEVEL_FOR_RISK.critical as Urgency) : threshold;
}

export interface NotifyAction {
  action: 'notify_supervisor';
  notification_threshold: NotificationThreshold;
}

export type RuleAction = EscalateAction | NotifyAction;

export interface EscalationRule {
  rule_id: string;
  rule_name: string;
  priority: RulePriority;
  conditions: Condition[];
  actions: RuleAction[];
}

const priorityRank = (priority: RulePriority) => RULE_PRIORITIES.indexOf(priority);
export const levelRank = (level: EscalationLevel) => ESCALATION_LEVELS.indexOf(level);

function escalationOf(rule: Pick<EscalationRule, 'actions'>): EscalateAction | undefined {
  return rule.actions.find((action): action is EscalateAction => action.action === 'escalate_to_human');
}

function notificationOf(rule: Pick<EscalationRule, 'actions'>): NotifyAction | undefined {
  return rule.actions.find((action): action is NotifyAction => action.action === 'notify_supervisor');
}

/** What is wrong with a rule as written, one message per problem, with the field it concerns. */
export function ruleProblems(
  rule: Pick<EscalationRule, 'conditions' | 'actions'>,
): Array<{ field: string; message: string }> {
  const problems: Array<{ field: string; message: string }> = [];
  rule.conditions.forEach((condition, index) => {
    const problem = conditionProblem(condition);
    if (problem) problems.push({ field: `conditions.${index}`, message: problem });
  });
  for (const kind of ['escalate_to_human', 'notify_supervisor'] as const) {
    if (rule.actions.filter((action) => action.action === kind).length > 1)
      problems.push({ field: 'actions', message: `at most one ${kind} action per rule` });
  }
  if (problems.length === 0 && isUnsatisfiable(regionOf(rule.conditions))) {
    problems.push({
      field: 'conditions',
      message: 'the conditions contradict each other, so the rule could never trigger',
    });
  }
  return problems;
}

export type RuleOutcome =
  | { kind: 'none' }
  | { kind: 'escalate'; rule_ids: string[]; target_capability: string; min_weight: number; urgency: Urgency }
  /** Rules of the same, highest priority demand different reviewers: a human decides, at the highest urgency asked. */
  | { kind: 'conflict'; rule_ids: string[]; target_capabilities: string[]; urgency: Urgency };

export interface RuleSetEvaluation {
  evaluations: RuleEvaluation[];
  outcome: RuleOutcome;
  /** notify_supervisor actions of triggered rules, applied once the escalation level is known. */
  notifications: Array<{ rule_id: string; notification_threshold: NotificationThreshold }>;
}

const maxUrgency = (urgencies: Urgency[]) =>
  urgencies.reduce<Urgency>((top, u) => (URGENCIES.indexOf(u) > URGENCIES.indexOf(top) ? u : top), 'low');

/**
 * Evaluates every rule against the facts. Among the triggered rules that escalate, the highest priority
 * decides; when its rules agree on the target capability they escalate together (the highest min_weight
 * and urgency asked); when they name different capabilities, priority does not settle it, and the outcome
 * is a conflict, which the routing resolves by sending the task to a human (fail safe).
 */
export function evaluateRules(rules: readonly EscalationRule[], facts: RoutingFacts): RuleSetEvaluation {
  const evaluations: RuleEvaluation[] = [];
  const escalating: Array<{ rule: EscalationRule; action: EscalateAction }> = [];
  const notifications: RuleSetEvaluation['notifications'] = [];
  for (const rule of rules) {
    const result = evaluateConditions(rule.conditions, facts);
    evaluations.push({ rule_id: rule.rule_id, triggered: result.holds, reason: result.explanation });
    if (!result.holds) continue;
    const escalation = escalationOf(rule);
    if (escalation) escalating.push({ rule, action: escalation });
    const notification = notificationOf(rule);
    if (notification)
      notifications.push({ rule_id: rule.rule_id, notification_threshold: notification.notification_threshold });
  }
  if (escalating.length === 0) return { evaluations, outcome: { kind: 'none' }, notifications };

  const top = escalating.reduce((highest, { rule }) => Math.max(highest, priorityRank(rule.priority)), 0);
  const deciding = escalating.filter(({ rule }) => priorityRank(rule.priority) === top);
  const overridden = new Set(
    escalating.filter(({ rule }) => priorityRank(rule.priority) < top).map(({ rule }) => rule.rule_id),
  );
  for (const evaluation of evaluations) {
    if (overridden.has(evaluation.rule_id))
      evaluation.reason = `${evaluation.reason}; overridden by a ${RULE_PRIORITIES[top]!} priority rule`;
  }
  const capabilities = [...new Set(deciding.map(({ action }) => action.target_capability))];
  const rule_ids = deciding.map(({ rule }) => rule.rule_id);
  const urgency = maxUrgency(deciding.map(({ action }) => action.urgency));
  if (capabilities.length > 1)
    return {
      evaluations,
      outcome: { kind: 'conflict', rule_ids, target_capabilities: capabilities, urgency },
      notifications,
    };
  return {
    evaluations,
    outcome: {
      kind: 'escalate',
      rule_ids,
      target_capability: capabilities[0]!,
      min_weight: deciding.reduce((max, { action }) => Math.max(max, action.min_weight), 0),
      urgency,
    },
    notifications,
  };
}

/** The notifications whose threshold the routing's escalation level reached. */
export function dueNotifications(
  notifications: RuleSetEvaluation['notifications'],
  level: EscalationLevel,
): RuleSetEvaluation['notifications'] {
  return notifications.filter(
    (notification) =>
      level !== 'none' && levelRank(level) >= levelRank(notificationLevel(notification.notification_threshold)),
  );
}

export interface RuleFinding {
  kind: 'conflict' | 'shadowed_by' | 'shadows';
  rule_id: string;
  rule_name: string;
  detail: string;
}

/**
 * `inner`'s effects never show whenever `outer` also triggers: its escalation loses to a higher priority
 * or repeats `outer`'s, and its notification is no earlier than `outer`'s.
 */
function effectsCovered(inner: EscalationRule, outer: EscalationRule): boolean {
  const innerEscalation = escalationOf(inner);
  const outerEscalation = escalationOf(outer);
  if (innerEscalation) {
    if (!outerEscalation) return false;
    const outranked = priorityRank(outer.priority) > priorityRank(inner.priority);
    const repeated =
      outer.priority === inner.priority &&
      outerEscalation.target_capability === innerEscalation.target_capability &&
      outerEscalation.min_weight >= innerEscalation.min_weight &&
      URGENCIES.indexOf(outerEscalation.urgency) >= URGENCIES.indexOf(innerEscalation.urgency);
    if (!outranked && !repeated) return false;
  }
  const innerNotification = notificationOf(inner);
  if (innerNotification) {
    const outerNotification = notificationOf(outer);
    if (
      !outerNotification ||
      levelRank(notificationLevel(outerNotification.notification_threshold)) >
        levelRank(notificationLevel(innerNotification.notification_threshold))
    )
      return false;
  }
  return true;
}

/**
 * What a new or changed rule does to the enabled rules, found without data: a conflict when both can
 * trigger on one routing and, at the same priority, escalate to different capabilities; shadowed_by when
 * every routing it matches is also matched by a rule whose effects cover its own, so it never has an
 * effect; shadows when it does that to an existing rule.
 */
export function analyzeRule(candidate: EscalationRule, existing: readonly EscalationRule[]): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const region = regionOf(candidate.conditions);
  const escalation = escalationOf(candidate);
  for (const other of existing) {
    if (other.rule_id === candidate.rule_id) continue;
    const otherRegion = regionOf(other.conditions);
    if (!overlaps(region, otherRegion)) continue;
    const otherEscalation = escalationOf(other);
    if (
      escalation &&
      otherEscalation &&
      other.priority === candidate.priority &&
      otherEscalation.target_capability !== escalation.target_capability
    ) {
      findings.push({
        kind: 'conflict',
        rule_id: other.rule_id,
        rule_name: other.rule_name,
        detail: `both can trigger on the same routing at ${candidate.priority} priority, escalating to ${escalation.target_capability} and to ${otherEscalation.target_capability}`,
      });
      continue;
    }
    if (isWithin(region, otherRegion) && effectsCovered(candidate, other)) {
      findings.push({
        kind: 'shadowed_by',
        rule_id: other.rule_id,
        rule_name: other.rule_name,
        detail: `every routing this rule matches, ${other.rule_name} matches too, and its actions take precedence`,
      });
    } else if (isWithin(otherRegion, region) && effectsCovered(other, candidate)) {
      findings.push({
        kind: 'shadows',
        rule_id: other.rule_id,
        rule_name: other.rule_name,
        detail: `this rule matches every routing ${other.rule_name} matches, and its actions take precedence`,
      });
    }
  }
  return findings;
}

export interface RuleScope {
  /** The task types the rule can match; null: any. */
  task_types: string[] | null;
  /** The domains the rule can match; null: any. */
  domains: string[] | null;
}

/** The task types and domains a rule is limited to by == or in, so a routing loads only rules that can match it. */
export function ruleScope(conditions: readonly Condition[]): RuleScope {
  const region: Region = regionOf(conditions);
  const strings = (field: string) =>
    allowedValues(region, field)?.filter((value): value is string => typeof value === 'string') ?? null;
  return { task_types: strings('task_type'), domains: strings('domain') };
}

/**
 * The task types a rule can match: those it names, else those of the domains it names (as configured, and
 * as seen in the history), else every task type ('*').
 */
export function appliesTo(scope: RuleScope, taskTypesOfDomain: (domain: string) => string[]): string[] {
  if (scope.task_types) return [...scope.task_types].sort();
  if (scope.domains) return [...new Set(scope.domains.flatMap(taskTypesOfDomain))].sort();
  return ['*'];
}

export interface TriggerRate {
  /** Percentage text, e.g. "12.5%"; "n/a" when there was no history to replay. */
  estimated_trigger_rate: string;
  routings_replayed: number;
  routings_triggered: number;
}

/** The share of the replayed routings on which the rule's conditions held. */
export function triggerRate(conditions: readonly Condition[], history: Iterable<RoutingFacts>): TriggerRate {
  let replayed = 0;
  let triggered = 0;
  for (const facts of history) {
    replayed += 1;
    if (evaluateConditions(conditions, facts).holds) triggered += 1;
  }
  return {
    estimated_trigger_rate: replayed === 0 ? 'n/a' : `${((100 * triggered) / replayed).toFixed(1)}%`,
    routings_replayed: replayed,
    routings_triggered: triggered,
  };
}
