import { Writable } from 'node:stream';
import winston from 'winston';
import { errorFields } from '../../lib/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';

/*
 * Errors are logged with their message and stack: a statement that fails must not carry the values bound to
 * it there (a private key being inserted, a token's hash), only its SQL with placeholders.
 */
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

const SECRET = 'd-of-a-private-jwk-0123456789abcdef';

async function failure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the statement did not fail');
}

/** What the service's logger writes for an error, as one JSON line. */
function logged(error: Error): string {
  let line = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      line += chunk.toString();
      done();
    },
  });
  const logger = winston.createLogger({
    format: winston.format.combine(errorFields(), winston.format.json()),
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- winston types its Stream transport as an interface; it is a TransportStream
    transports: [new winston.transports.Stream({ stream: sink })],
  });
  logger.error('statement failed', { error });
  return line;
}

describe('a failing statement', () => {
  it('names its SQL and the database’s refusal, never a bound value', async () => {
    const row = {
      token_id: 'pat_bound_1',
      name: 'first',
      token_hash: SECRET,
      scopes: ['orch:read'],
      organization_id: 'org_default',
    };
    await database.db('api_tokens').insert(row);
    const error = await failure(() => database.db('api_tokens').insert({ ...row, token_id: 'pat_bound_2' }));
    expect(error.message).toMatch(
      /^insert into "api_tokens" .*values \(\$1, \$2, \$3, \$4, \$5\) - duplicate key value violates unique constraint/,
    );
    expect(error.message).not.toContain(SECRET);
    expect(logged(error)).toContain('duplicate key value');
    expect(logged(error)).not.toContain(SECRET);
  });

  it('never puts a bound value where a literal question mark is (the jsonb key operator)', async () => {
    // knex numbers the placeholders ($1) first; formatting the message used to put the bindings into any "?" left.
    const error = await failure(() =>
      database.db.raw("select ?::jsonb \\? 'd' as has_d from no_such_table", [JSON.stringify({ d: SECRET })]),
    );
    expect(error.message).toMatch(/relation "no_such_table" does not exist/);
    expect(error.message).not.toContain(SECRET);
    expect(logged(error)).not.toContain(SECRET);
  });

  it('keeps a check violation’s failing row out of the message too', async () => {
    await database.db('signing_keys').insert({
      kid: 'kid-bound',
      public_jwk: JSON.stringify({ kty: 'OKP' }),
      private_jwk: JSON.stringify({ d: SECRET }),
    });
    const error = await failure(() =>
      database
        .db('signing_keys')
        .where({ kid: 'kid-bound' })
        .update({ private_jwk: null, note_of_a_secret: SECRET } as never),
    );
    expect(error.message).not.toContain(SECRET);
    const nulled = await failure(() =>
      database.db('signing_keys').where({ kid: 'kid-bound' }).update({ private_jwk: null }),
    );
    expect(nulled.message).toMatch(/violates check constraint "signing_keys_private_key_kept"/);
    expect(logged(nulled)).not.toContain(SECRET);
  });
});
