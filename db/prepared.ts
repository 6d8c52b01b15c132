import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

interface NamedQuery {
  name: string;
  text: string;
  values: readonly unknown[];
}

/** node-postgres's connection as far as a named statement needs it (the callback form, which db/connection.ts wraps). */
interface PgConnection {
  query(config: NamedQuery, callback: (error: Error | null, result: { rows: unknown[] }) => void): void;
}

/** A statement in Postgres's own form ($1, $2, …), with its name, and for named bindings their order. */
interface Statement {
  name: string;
  text: string;
  order: readonly string[];
}

/** By the text as the caller writes it: compiled once per process, so a hot call does no SQL rewriting. */
const namedStatements = new Map<string, Statement | null>();
const positionalStatements = new Map<string, Statement>();

function statementNamed(text: string, order: readonly string[]): Statement {
  return { name: `handoff_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text, order };
}

/** knex's raw named bindings: `:name` a value, `:name:` an identifier, a backslash escapes; `::type` casts are not bindings. */
const NAMED_BINDING = /\\?(:(\w+):(?=::)|:(\w+):(?!:)|:(\w+))/g;

/**
 * `:name` value bindings as knex's raw reads them (a `:word` that names no binding is left as it is, as in a
 * `::type` cast), numbered in order of appearance; null where knex would do more than that (an identifier
 * binding, an escape, a literal `?`), for which knex itself compiles every call.
 */
function compileNamed(sql: string, bindings: Record<string, unknown>): Statement | null {
  if (sql.includes('?')) return null;
  const order: string[] = [];
  const beyond: string[] = [];
  const text = sql.replace(NAMED_BINDING, (match: string, whole: string, ...names: Array<string | undefined>) => {
    const name = names[0] ?? names[1] ?? names[2]!;
    if (match !== whole || names[2] === undefined) {
      if (match !== whole || Object.hasOwn(bindings, name)) beyond.push(match);
      return match;
    }
    if (!Object.hasOwn(bindings, name)) return match;
    order.push(name);
    return `$${order.length}`;
  });
  return beyond.length === 0 ? statementNamed(text, order) : null;
}

/** `?` placeholders as $1, $2, …; a statement written for this helper has no `??` (identifier) or escaped `\?`. */
function compilePositional(sql: string): Statement {
  if (sql.includes('??') || sql.includes('\\?'))
    throw new Error('A prepared statement takes plain ? placeholders only');
  let count = 0;
  return statementNamed(
    sql.replace(/\?/g, () => `$${++count}`),
    [],
  );
}

/** knex refuses undefined anywhere in a binding (a jsonb object's member too) rather than send it as null. */
function containsUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.some(containsUndefined);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value).some(containsUndefined);
  return false;
}

function checked(values: readonly unknown[], text: string): readonly unknown[] {
  if (values.some(containsUndefined))
    throw new Error(`Undefined binding(s) detected when compiling a prepared statement: ${text.slice(0, 200)}`);
  return values;
}

async function runNamed<Row>(db: Knex, query: NamedQuery): Promise<Row[]> {
  const client = db.client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<unknown>;
  };
  const connection = await client.acquireConnection();
  try {
    return await new Promise<Row[]>((resolve, reject) =>
      connection.query(query, (error, result) => (error ? reject(error) : resolve(result.rows as Row[]))),
    );
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A hot read as a named prepared statement: parsed once per connection, and planned once Postgres settles on
 * a generic plan (after five custom ones), where a raw statement is parsed and planned at every call. For the
 * matcher's and routing's statements planning cost more than executing (EXPLAIN at bench size: 0.35–0.4 ms
 * planned, 0.14 ms executed). Named bindings as knex's raw takes them; works inside a transaction too.
 */
export async function preparedRows<Row>(db: Knex, sql: string, bindings: Record<string, unknown>): Promise<Row[]> {
  let statement = namedStatements.get(sql);
  if (statement === undefined) {
    // The names bound at the first call are the statement's: its caller binds the same ones every time.
    statement = compileNamed(sql, bindings);
    namedStatements.set(sql, statement);
  }
  if (statement === null) {
    const native = db.raw(sql, bindings).toSQL().toNative();
    return runNamed<Row>(db, { ...statementNamed(native.sql, []), values: native.bindings });
  }
  const { name, text, order } = statement;
  return runNamed<Row>(db, {
    name,
    text,
    values: checked(
      order.map((key) => bindings[key]),
      text,
    ),
  });
}

/**
 * A hot write or read with `?` placeholders, as a named prepared statement (see preparedRows). The text is
 * compiled once: a caller whose text is the same at every call (its bindings differ) rewrites no SQL per call.
 */
export async function preparedQuery<Row>(db: Knex, sql: string, values: readonly unknown[]): Promise<Row[]> {
  let statement = positionalStatements.get(sql);
  if (!statement) {
    statement = compilePositional(sql);
    positionalStatements.set(sql, statement);
  }
  return runNamed<Row>(db, { name: statement.name, text: statement.text, values: checked(values, statement.text) });
}
