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

/** Recursive descent over the tokens: or → and → not → comparison → operand. */
class ConditionParser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  /** The whole condition; a token left over is an error. */
  parse(): ConditionNode {
    const tree = this.or();
    const rest = this.peek();
    if (rest)
      throw new ConditionSyntaxError(
        `unexpected ${rest.type === 'string' ? JSON.stringify(rest.value) : rest.value} at ${rest.at}`,
      );
    return tree;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  /** Steps over the operator when it comes next. */
  private accept(op: string): boolean {
    const token = this.peek();
    if (token?.type !== 'op' || token.value !== op) return false;
    this.position += 1;
    return true;
  }

  private expect(op: string): void {
    const token = this.peek();
    if (!this.accept(op)) throw new ConditionSyntaxError(`expected ${op} ${token ? `at ${token.at}` : 'at the end'}`);
  }

  private or(): ConditionNode {
    let left = this.and();
    while (this.accept('||')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): ConditionNode {
    let left = this.not();
    while (this.accept('&&')) left = { kind: 'and', left, right: this.not() };
    return left;
  }

  private not(): ConditionNode {
    if (this.accept('!')) return { kind: 'not', operand: this.not() };
    return this.comparison();
  }

  private comparison(): ConditionNode {
    const left = this.operand();
    const token = this.peek();
    if (token?.type === 'op' && (COMPARISON_OPERATORS as readonly string[]).includes(token.value)) {
      this.position += 1;
      return { kind: 'compare', op: token.value as ComparisonOperator, left, right: this.operand() };
    }
    return left;
  }

  private operand(): ConditionNode {
    const token = this.peek();
    if (!token) throw new ConditionSyntaxError('expected a value at the end');
    if (this.accept('(')) {
      const inner = this.or();
      this.expect(')');
      return inner;
    }
    this.position += 1;
    if (token.type === 'number' || token.type === 'string') return { kind: 'literal', value: token.value };
    if (token.type === 'word') {
      if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
      if (token.value === 'null') return { kind: 'literal', value: null };
      return this.path(token.value);
    }
    throw new ConditionSyntaxError(`unexpected ${token.value} at ${token.at}`);
  }

  /** A field name followed by any number of `.name` and `[index]`. */
  private path(first: string): ConditionNode {
    const segments: Array<string | number> = [first];
    for (;;) {
      if (this.accept('.')) {
        const next = this.peek();
        if (next?.type !== 'word')
          throw new ConditionSyntaxError(`expected a field name after . ${next ? `at ${next.at}` : 'at the end'}`);
        segments.push(next.value);
        this.position += 1;
      } else if (this.accept('[')) {
        const index = this.peek();
        if (index?.type !== 'number' || !Number.isInteger(index.value) || index.value < 0)
          throw new ConditionSyntaxError('expected an index in [ ]');
        segments.push(index.value);
        this.position += 1;
        this.expect(']');
      } else {
        return { kind: 'path', segments };
      }
    }
  }
}

export function parseCondition(text: string): ParseResult {
  if (text.trim().length === 0) return { ok: false, error: 'is empty' };
  if (text.length > MAX_CONDITION_LENGTH)
    return { ok: false, error: `is longer than ${MAX_CONDITION_LENGTH} characters` };
  try {
    return { ok: true, condition: new ConditionParser(tokenize(text)).parse() };
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
