/**
 * Whether an error says a dependency (PostgreSQL, Temporal) is unreachable or too slow, rather than that the
 * request or our code is wrong: such a failure is the dependency's outage, answered 503 with Retry-After.
 */
export type Dependency = 'postgres' | 'temporal';

export interface DependencyFailure {
  dependency: Dependency;
  reason: string;
}

// SQLSTATE class 08 (connection exception), and the server going away, refusing sessions, or out of them.
const PG_UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53400']);
// 57014 query_canceled: statement_timeout, the bound this service sets on every statement.
const PG_TIMEOUT_STATE = '57014';
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// node-postgres and knex say these in words only (knex puts the statement before a query's error).
const PG_MESSAGES = [
  /\bConnection terminated\b/i,
  /timeout exceeded when trying to connect/i,
  /^timeout expired$/i,
  /\bQuery read timeout$/i,
  /Client has encountered a connection error and is not queryable/i,
  /Client was closed and is not queryable/i,
  /Timeout acquiring a connection/i,
  /operation timed out for an unknown reason/i,
];
// gRPC status codes: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED.
const GRPC_UNAVAILABLE_CODES = new Set([14, 4, 8]);
const TEMPORAL_TIMEOUT_ERRORS = new Set(['WorkflowUpdateRPCTimeoutOrCancelledError']);

interface ErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  metadata?: unknown;
  cause?: unknown;
}

function classifyOne(error: ErrorFields, thrownDirectly: boolean): DependencyFailure | undefined {
  const message = typeof error.message === 'string' ? error.message : '';
  const name = typeof error.name === 'string' ? error.name : '';
  // A gRPC ServiceError carries a numeric status code and metadata.
  if (typeof error.code === 'number' && error.metadata !== undefined) {
    return GRPC_UNAVAILABLE_CODES.has(error.code) ? { dependency: 'temporal', reason: message } : undefined;
  }
  if (TEMPORAL_TIMEOUT_ERRORS.has(name)) return { dependency: 'temporal', reason: message };
  if (name === 'KnexTimeoutError') return { dependency: 'postgres', reason: message };
  if (typeof error.code === 'string') {
    if (error.code.startsWith('08') || PG_UNAVAILABLE_STATES.has(error.code) || error.code === PG_TIMEOUT_STATE)
      return { dependency: 'postgres', reason: message };
    // node-postgres throws socket errors as they are; one found deeper in a cause chain is some other call's (outbound HTTP).
    if (thrownDirectly && NETWORK_CODES.has(error.code)) return { dependency: 'postgres', reason: message };
  }
  if (PG_MESSAGES.some((pattern) => pattern.test(message))) return { dependency: 'postgres', reason: message };
  return undefined;
}

/** The dependency failure an error is or was caused by (its cause chain, AggregateError's members), if any. */
export function dependencyFailureOf(error: unknown, depth = 0): DependencyFailure | undefined {
  if (depth > 8 || typeof error !== 'object' || error === null) return undefined;
  const found = classifyOne(error, depth === 0);
  if (found) return found;
  if (error instanceof AggregateError) {
    for (const member of error.errors) {
      const inner = dependencyFailureOf(member, depth + 1);
      if (inner) return inner;
    }
  }
  return dependencyFailureOf((error as ErrorFields).cause, depth + 1);
}
