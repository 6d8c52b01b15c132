import { dependencyFailureOf } from '../../lib/dependency-failure';

const withFields = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
const grpc = (code: number) =>
  withFields('14 UNAVAILABLE: No connection established', { code, metadata: {} /* a gRPC ServiceError's Metadata */ });

describe('dependencyFailureOf', () => {
  it.each([
    [
      'a refused connection to Postgres',
      withFields('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' }),
      'postgres',
    ],
    [
      'the server shutting down (57P01)',
      withFields('terminating connection due to administrator command', { code: '57P01' }),
      'postgres',
    ],
    ['a connection exception (class 08)', withFields('connection failure', { code: '08006' }), 'postgres'],
    [
      'statement_timeout (57014)',
      withFields('canceling statement due to statement timeout', { code: '57014' }),
      'postgres',
    ],
    [
      'the pool’s acquire timeout',
      withFields('Knex: Timeout acquiring a connection. The pool is probably full.', { name: 'KnexTimeoutError' }),
      'postgres',
    ],
    ['the client’s read timeout, after knex’s statement', new Error('select 1 - Query read timeout'), 'postgres'],
    ['a connection the server dropped', new Error('Connection terminated unexpectedly'), 'postgres'],
    ['Temporal unavailable (gRPC 14)', grpc(14), 'temporal'],
    ['a Temporal call past its deadline (gRPC 4)', grpc(4), 'temporal'],
    [
      'a Temporal error wrapping an unavailable channel',
      withFields('Failed to start workflow', { cause: grpc(14) }),
      'temporal',
    ],
    [
      'an Update the client gave up on',
      withFields('Timed out or cancelled waiting for Workflow Update', {
        name: 'WorkflowUpdateRPCTimeoutOrCancelledError',
      }),
      'temporal',
    ],
  ])('names %s', (_case, error, dependency) => {
    expect(dependencyFailureOf(error)?.dependency).toBe(dependency);
  });

  it.each([
    ['a unique violation', withFields('duplicate key value violates unique constraint', { code: '23505' })],
    ['a programming error', new TypeError('cannot read properties of undefined')],
    ['a Temporal not-found (gRPC 5)', grpc(5)],
    [
      'an outbound call refused, deep in a cause chain',
      withFields('fetch failed', { cause: withFields('connect ECONNREFUSED 10.0.0.1:443', { code: 'ECONNREFUSED' }) }),
    ],
    ['a value that is not an error', 'ECONNREFUSED'],
  ])('does not blame a dependency for %s', (_case, error) => {
    expect(dependencyFailureOf(error)).toBeUndefined();
  });
});
