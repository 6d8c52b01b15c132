import { RISK_LEVELS, riskRank, type RiskLevel } from '../routing/risk';

/**
 * The condition language of escalation rules and safety boundaries: a field of the routing's facts, an
 * operator and a value. A rule or boundary holds when all of its conditions hold; a condition on a field
 * the task does not carry (a missing amount or context field) does not hold.
 */
export const CONDITION_OPERATORS = ['==', '!=', '>', '>=', '<', '<=', 'in', 'not_in'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const CONDITION_FIELDS = ['risk_level', 'domain', 'ai_confidence', 'task_type', 'amount'] as const;
/** A named field, or `context.<path>` for a field of the task's context (dots descend into objects). */
export type ConditionField = (typeof CONDITION_FIELDS)[number] | `context.${string}`;

export type Scalar = string | number | boolean;

export interface Condition {
  condition_type: string;
  operator: ConditionOperator;
  value: Scalar | Scalar[];
}

/** What a routing is judged on, the same for live routings and for replays of stored ones. */
export interface RoutingFacts {
  task_type: string;
  domain: string;
  risk_level: RiskLevel;
  ai_confidence: number;
  context: Record<string, unknown>;
}

const ORDERING: readonly ConditionOperator[] = ['>', '>=', '<', '<='];
const LIST: readonly ConditionOperator[] = ['in', 'not_in'];
const CONTEXT_PATH = /^context\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function isOrdering(operator: ConditionOperator): boolean {
  return ORDERING.includes(operator);
}

export function isListOperator(operator: ConditionOperator): boolean {
  return LIST.includes(operator);
}

export function isConditionField(field: string): field is ConditionField {
  return (CONDITION_FIELDS as readonly string[]).includes(field) || CONTEXT_PATH.test(field);
}

/** Why a condition cannot be evaluated as written, or undefined when it is well formed. */
export function conditionProblem(condition: Condition): string | undefined {
  const { condition_type: field, operator, value } = condition;
  if (!isConditionField(field))
    return `unknown condition_type ${field}; use ${CONDITION_FIELDS.join(', ')} or context.<field>`;
  const values = Array.isArray(value) ? value : [value];
  if (isListOperator(operator) !== Array.isArray(value))
    return isListOperator(operator) ? `${operator} takes a list of values` : `${operator} takes a single value`;
  if (Array.isArray(value) && value.length === 0) return `${operator} needs at least one value`;
  if (
    field === 'risk_level' &&
    !values.every((v) => typeof v === 'string' && (RISK_LEVELS as readonly string[]).includes(v))
  ) {
    return `risk_level values are ${RISK_LEVELS.join(', ')}`;
  }
  if (
    (field === 'ai_confidence' || field === 'amount') &&
    !values.every((v) => typeof v === 'number' && Number.isFinite(v))
  )
    return `${field} compares with numbers`;
  if (field === 'ai_confidence' && !values.every((v) => (v as number) >= 0 && (v as number) <= 1))
    return 'ai_confidence values lie between 0 and 1';
  if (
    (field === 'task_type' || field === 'domain') &&
    (isOrdering(operator) || !values.every((v) => typeof v === 'string'))
  ) {
    return `${field} compares with strings by ==, !=, in or not_in`;
  }
  if (field.startsWith('context.') && isOrdering(operator) && typeof value !== 'number')
    return `${operator} on a context field compares with a number`;
  return undefined;
}

/** The value a field has for these facts, or undefined when the task does not carry it. */
export function factValue(facts: RoutingFacts, field: string): unknown {
  switch (field) {
    case 'risk_level':
      return facts.risk_level;
    case 'domain':
      return facts.domain;
    case 'ai_confidence':
      return facts.ai_confidence;
    case 'task_type':
      return facts.task_type;
    case 'amount':
      return facts.context.amount;
    default: {
      let value: unknown = facts.context;
      for (const key of field.slice('context.'.length).split('.')) {
        if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key))
          return undefined;
        value = (value as Record<string, unknown>)[key];
      }
      return value;
    }
  }
}

/** Risk levels compare by rank, so `risk_level >= high` holds for high and critical. */
function comparable(field: string, value: unknown): unknown {
  return field === 'risk_level' && typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value)
    ? riskRank(value as RiskLevel)
    : value;
}

function isScalar(value: unknown): value is Scalar {
  return (
    typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean'
  );
}

function holds(operator: ConditionOperator, actual: Scalar, expected: Scalar | Scalar[]): boolean {
  switch (operator) {
    case '==':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case 'in':
      return (expected as Scalar[]).includes(actual);
    case 'not_in':
      return !(expected as Scalar[]).includes(actual);
    default: {
      if (typeof actual !== 'number' || typeof expected !== 'number') return false;
      if (operator === '>') return actual > expected;
      if (operator === '>=') return actual >= expected;
      if (operator === '<') return actual < expected;
      return actual <= expected;
    }
  }
}

const show = (value: unknown) => (Array.isArray(value) ? `[${value.join(', ')}]` : String(value));

export interface ConditionResult {
  holds: boolean;
  /** e.g. `risk_level high >= high`, or, for a field the task does not carry, `amount is missing`. */
  explanation: string;
  missing?: boolean;
}

export function evaluateCondition(condition: Condition, facts: RoutingFacts): ConditionResult {
  const field = condition.condition_type;
  const actual = factValue(facts, field);
  if (actual === undefined || actual === null)
    return { holds: false, explanation: `${field} is missing`, missing: true };
  if (!isScalar(actual)) return { holds: false, explanation: `${field} is not a single value`, missing: true };
  const left = comparable(field, actual) as Scalar;
  const right = Array.isArray(condition.value)
    ? condition.value.map((v) => comparable(field, v) as Scalar)
    : (comparable(field, condition.value) as Scalar);
  return {
    holds: holds(condition.operator, left, right),
    explanation: `${field} ${show(actual)} ${condition.operator} ${show(condition.value)}`,
  };
}

/** All conditions hold; the explanation lists them when they do, and names the first that does not. */
export function evaluateConditions(conditions: readonly Condition[], facts: RoutingFacts): ConditionResult {
  const explanations: string[] = [];
  for (const condition of conditions) {
    const result = evaluateCondition(condition, facts);
    if (!result.holds)
      return { holds: false, explanation: result.missing ? result.explanation : `${result.explanation} does not hold` };
    explanations.push(result.explanation);
  }
  return { holds: true, explanation: explanations.length > 0 ? explanations.join('; ') : 'no conditions' };
}
