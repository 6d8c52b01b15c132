import type { ZodError } from 'zod';
import type { FieldError } from './problem';

/** The platform spec's code for a required field that is absent. */
export const REQUIRED_FIELD_MISSING = 'REQUIRED_FIELD_MISSING';

const SHORT = 32;
// Values of fields named like these are never rendered, whatever the issue.
const SENSITIVE_NAME =
  /secret|password|passphrase|api[_-]?key|authorization|credential|signature|private[_-]?key|(?:^|[._-])(?:\w+_)?token$/i;

type Issue = ZodError['issues'][number] & { input?: unknown };

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function truncated(text: string): string {
  return text.length > SHORT ? `${text.slice(0, SHORT - 1)}…` : text;
}

/** A literal as a client would write it, cut short. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `"${truncated(value)}"`;
  return truncated(String(value));
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A discriminated union's issue is about its discriminator: the value there, and the values it takes. */
function discriminator(issue: Issue): { value: unknown; options: unknown[] } | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const { discriminator: key, options } = issue as Issue & { discriminator?: unknown; options?: unknown[] };
  if (typeof key !== 'string' || !Array.isArray(options)) return undefined;
  const input = issue.input;
  return {
    value: typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined,
    options,
  };
}

/**
 * What was sent, as far as it is safe to say: a number or boolean itself, the size of a string or array, else
 * the type. A string is shown only where it failed to be one of a few listed values (a typo, not data).
 */
function received(issue: Issue, field: string): string {
  const chosen = discriminator(issue);
  const value = chosen ? chosen.value : issue.input;
  if (issue.code === 'unrecognized_keys')
    return [...issue.keys.slice(0, 5).map(literal), ...(issue.keys.length > 5 ? ['…'] : [])].join(', ');
  if (value === undefined) return 'missing';
  if (SENSITIVE_NAME.test(field)) return typeName(value);
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : literal(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return literal(value);
  if (typeof value === 'string' && (issue.code === 'invalid_value' || chosen)) return literal(value);
  if (issue.code === 'invalid_type') return typeName(value);
  if (typeof value === 'string') return `string of ${plural(value.length, 'character')}`;
  if (Array.isArray(value)) return `array of ${plural(value.length, 'item')}`;
  return typeName(value);
}

function oneOf(values: readonly unknown[]): string {
  return values.length === 1 ? literal(values[0]) : `one of ${values.map(literal).join(', ')}`;
}

function bound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string | undefined {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      return `${small ? 'at least' : 'at most'} ${plural(Number(limit), 'character')}`;
    case 'array':
    case 'set':
      return `${small ? 'at least' : 'at most'} ${plural(Number(limit), 'item')}`;
    case 'number':
    case 'int':
    case 'bigint':
    case 'date':
      return `${small ? '>' : '<'}${inclusive ? '=' : ''} ${String(limit)}`;
    default:
      return undefined;
  }
}

function expected(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected;
    case 'too_small':
    case 'too_big':
      return bound(issue);
    case 'invalid_value':
      return oneOf(issue.values);
    case 'invalid_union': {
      const chosen = discriminator(issue);
      return chosen ? oneOf(chosen.options) : undefined;
    }
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue
        ? `a string matching ${String(issue.pattern)}`
        : issue.format;
    case 'not_multiple_of':
      return `a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'only the documented fields';
    default:
      return undefined;
  }
}

/**
 * zod's issues as the problem's errors[]: where each is (location.path), zod's code (REQUIRED_FIELD_MISSING for
 * an absent required field), its message, and what was expected and received. Parse with reportInput so that
 * received can be told.
 */
export function fieldErrors(error: ZodError, location: string): FieldError[] {
  return (error.issues as Issue[]).map((issue) => {
    const field = [location, ...issue.path.map(String)].filter(Boolean).join('.');
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    const wanted = expected(issue);
    return {
      field,
      code: missing ? REQUIRED_FIELD_MISSING : issue.code,
      message: missing ? 'Required' : issue.message,
      ...(wanted !== undefined ? { expected: wanted } : {}),
      received: received(issue, field),
    };
  });
}
