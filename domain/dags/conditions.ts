/**
 * The condition language of workflow DAGs (conditional edges and condition nodes): comparisons of values
 * read by path from a node's output, joined with && || ! and parentheses, e.g.
 * `score >= 0.8 && status == "ok"`, `!flags.manual`, `items[0].kind != null`. Parsed once at creation (so a
 * bad condition is a 400, not a failed run) and evaluated without eval.
 */

export type Literal = string | number | boolean | null;

export type ConditionNode =
  | { kind: 'literal'; value: Literal }
  | { kind: 'path'; segments: Array<string | number> }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'and' | 'or'; left: ConditionNode; right: ConditionNode }
  | { kind: 'compare'; op: ComparisonOperator; left: ConditionNode; right: ConditionNode };

const COMPARISON_OPERATORS = ['==', '!=', '<=', '>=', '<', '>'] as const;
type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export type ParseResult = { ok: true; condition: ConditionNode } | { ok: false; error: string };

type Token =
  | { type: 'number'; value: number; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'word'; value: string; at: number }
  | { type: 'op'; value: string; at: number };

const MAX_CONDITION_LENGTH = 1000;

class ConditionSyntaxError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i += 1;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (['==', '!=', '<=', '>=', '&&', '||'].includes(two)) {
      tokens.push({ type: 'op', value: two, at: i });
      i += 2;
      continue;
    }
    if ('<>!().[]'.includes(char)) {
      tokens.push({ type: 'op', value: char, at: i });
      i += 1;
      continue;
    }
    if (char === '"' || char === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== char; j += 1) {
        if (text[j] === '\\' && j + 1 < text.length) j += 1;
        value += text[j]!;
      }
      if (j >= text.length) throw new ConditionSyntaxError(`unterminated string at ${i}`);
      tokens.push({ type: 'string', value, at: i });
      i = j + 1;
      continue;
    }
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      tokens.push({ type: 'number', value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_$][A-Za-z0-9_$-]*/.exec(text.slice(i));
    if (word) {
      tokens.push({ type: 'word', value: word[0], at: i });
      i += word[0].length;
      continue;
    }
    throw new ConditionSyntaxError(`unexpected ${JSON.stringify(char)} at ${i}`);
  }
  return tokens;
}

/** Recursive descent: or → and → not → comparison → operand. */
function parseTokens(tokens: Token[]): ConditionNode {
  let position = 0;
  const peek = () => tokens[position];
  const isOp = (value: string) => peek()?.type === 'op' && peek()?.value === value;
  const expect = (value: string) => {
    if (!isOp(value)) throw new ConditionSyntaxError(`expected ${value} ${peek() ? `at ${peek()!.at}` : 'at the end'}`);
    position += 1;
  };

  function operand(): ConditionNode {
    const token = peek();
    if (!token) throw new ConditionSyntaxError('expected a value at the end');
    if (isOp('(')) {
      position += 1;
      const inner = or();
      expect(')');
      return inner;
    }
    position += 1;
    if (token.type === 'number' || token.type === 'string') return { kind: 'literal', value: token.value };
    if (token.type === 'word') {
      if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
      if (token.value === 'null') return { kind: 'literal', value: null };
      const segments: Array<string | number> = [token.value];
      for (;;) {
        if (isOp('.')) {
          position += 1;
          const next = peek();
          if (next?.type !== 'word')
            throw new ConditionSyntaxError(`expected a field name after . ${next ? `at ${next.at}` : 'at the end'}`);
          segments.push(next.value);
          position += 1;
        } else if (isOp('[')) {
          position += 1;
          const index = peek();
          if (index?.type !== 'number' || !Number.isInteger(index.value) || index.value < 0)
            throw new ConditionSyntaxError('expected an index in [ ]');
          segments.push(index.value);
          position += 1;
          expect(']');
        } else {
          return { kind: 'path', segments };
        }
      }
    }
    throw new ConditionSyntaxError(`unexpected ${token.value} at ${token.at}`);
  }

  function comparison(): ConditionNode {
    const left = operand();
    const token = peek();
    if (token?.type === 'op' && (COMPARISON_OPERATORS as readonly string[]).includes(token.value)) {
      position += 1;
      return { kind: 'compare', op: token.value as ComparisonOperator, left, right: operand() };
    }
    return left;
  }

  function not(): ConditionNode {
    if (isOp('!')) {
      position += 1;
      return { kind: 'not', operand: not() };
    }
    return comparison();
  }

  function and(): ConditionNode {
    let left = not();
    while (isOp('&&')) {
      position += 1;
      left = { kind: 'and', left, right: not() };
    }
    return left;
  }

  function or(): ConditionNode {
    let left = and();
    while (isOp('||')) {
      position += 1;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  }

  const tree = or();
  const rest = peek();
  if (rest)
    throw new ConditionSyntaxError(
      `unexpected ${rest.type === 'string' ? JSON.stringify(rest.value) : rest.value} at ${rest.at}`,
    );
  return tree;
}

export function parseCondition(text: string): ParseResult {
  if (text.trim().length === 0) return { ok: false, error: 'is empty' };
  if (text.length > MAX_CONDITION_LENGTH)
    return { ok: false, error: `is longer than ${MAX_CONDITION_LENGTH} characters` };
  try {
    return { ok: true, condition: parseTokens(tokenize(text)) };
  } catch (error) {
    if (error instanceof ConditionSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

function resolvePath(scope: unknown, segments: Array<string | number>): unknown {
  let value = scope;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[segment];
    } else {
      if (!Object.hasOwn(value, segment)) return undefined;
      value = (value as Record<string, unknown>)[segment];
    }
  }
  return value;
}

function value(node: ConditionNode, scope: unknown): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'path':
      return resolvePath(scope, node.segments);
    default:
      return truth(node, scope);
  }
}

/** A missing field equals null; order comparisons hold only between two numbers or two strings. */
function compare(op: ComparisonOperator, left: unknown, right: unknown): boolean {
  const a = left === undefined ? null : left;
  const b = right === undefined ? null : right;
  if (op === '==' || op === '!=') {
    const equal =
      a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
    return op === '==' ? equal : !equal;
  }
  const comparable =
    (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) return false;
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
}

/** Whether the condition holds for the scope (a node's output); a bare value counts when it is truthy. */
export function truth(node: ConditionNode, scope: unknown): boolean {
  switch (node.kind) {
    case 'not':
      return !truth(node.operand, scope);
    case 'and':
      return truth(node.left, scope) && truth(node.right, scope);
    case 'or':
      return truth(node.left, scope) || truth(node.right, scope);
    case 'compare':
      return compare(node.op, value(node.left, scope), value(node.right, scope));
    default: {
      const v = value(node, scope);
      return v !== null && v !== undefined && v !== false && v !== 0 && v !== '';
    }
  }
}

/** Parses and evaluates; a condition that does not parse never holds (creation refuses those first). */
export function conditionHolds(text: string, scope: unknown): boolean {
  const parsed = parseCondition(text);
  return parsed.ok && truth(parsed.condition, scope);
}
