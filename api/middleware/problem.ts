import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Response } from 'express';
import { dependencyFailureOf, type DependencyFailure } from '../../lib/dependency-failure';
import type { Logger } from '../../lib/logger';
import { StorageRefusedError } from '../../services/platform/refusals';
import { Problem, problemTypeUri, remediationSteps } from '../problem';
import { requestIdOf } from './request-id';

/** Seconds a client is told to wait after a dependency outage or a request cut off at its deadline. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export function unavailableProblem(detail: string): Problem {
  return new Problem('service_unavailable', detail, {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

const DEPENDENCY_NAMES = { postgres: 'The database', temporal: 'The workflow engine (Temporal)' } as const;

/** Renders a problem; incidentId is given for a 5xx, whose error log line carries the same id. */
export function sendProblem(res: Response, problem: Problem, instance: string, incidentId?: string): void {
  for (const [name, value] of Object.entries(problem.options.headers ?? {})) res.set(name, value);
  res
    .status(problem.status)
    .type('application/problem+json')
    .json({
      ...problem.options.extensions,
      type: problemTypeUri(problem.code),
      title: problem.title,
      status: problem.status,
      ...(problem.detail ? { detail: problem.detail } : {}),
      instance,
      request_id: requestIdOf(res),
      ...(incidentId ? { incident_id: incidentId } : {}),
      ...(problem.options.errors ? { errors: problem.options.errors } : {}),
      remediation: remediationSteps(problem.code),
    });
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Turns body-parser's errors into the problems a client can act on. */
function fromBodyParser(error: BodyParserError): Problem | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new Problem('malformed_json', 'The request body could not be parsed as JSON');
    case 'entity.too.large':
      return new Problem('payload_too_large', error.message);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new Problem('unsupported_media_type', error.message);
    default:
      return undefined;
  }
}

/** The router could not percent-decode a path parameter (`%`, `%zz`, bytes that are not UTF-8). */
function isUndecodablePath(error: unknown): boolean {
  return error instanceof URIError && (error as URIError & { status?: number }).status === 400;
}

/** The problem an error means to the client; undefined for an unexpected error, which is a 500. */
function problemOf(error: unknown, dependency: DependencyFailure | undefined): Problem | undefined {
  if (error instanceof Problem) return error;
  if (dependency)
    return unavailableProblem(
      `${DEPENDENCY_NAMES[dependency.dependency]} did not answer in time; retry after the seconds in Retry-After`,
    );
  if (error instanceof StorageRefusedError) return new Problem(error.refusal.code, error.refusal.detail);
  if (isUndecodablePath(error))
    return new Problem('invalid_request', 'A path segment is not valid percent-encoded UTF-8');
  return fromBodyParser(error as BodyParserError);
}

/**
 * The one renderer of errors. A Problem is shown as it is; anything else is a 500 that shows the request id
 * and nothing of the internals, while the log keeps the stack. Every 5xx gets an incident id, in the body and
 * in its error log line, so that what a client quotes leads an SRE to the cause.
 */
export function problemRenderer(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      // Answered already (by the request's deadline): the handler's late failure only needs a log line.
      if (res.writableEnded) {
        logger.warn('request failed after it was answered', {
          request_id: requestIdOf(res),
          path: req.path,
          error: error instanceof Error ? error.message : String(error),
        });
        return;
      }
      next(error);
      return;
    }
    const dependency = error instanceof Problem ? undefined : dependencyFailureOf(error);
    const problem = problemOf(error, dependency);
    const instance = req.originalUrl.split('?')[0] ?? req.path;
    if (problem && problem.status < 500) {
      sendProblem(res, problem, instance);
      return;
    }
    const requestId = requestIdOf(res);
    const incidentId = `inc_${randomUUID()}`;
    if (dependency)
      logger.error('dependency unavailable', {
        incident_id: incidentId,
        request_id: requestId,
        path: req.path,
        dependency: dependency.dependency,
        reason: dependency.reason,
      });
    else if (problem)
      logger.error('service problem', {
        incident_id: incidentId,
        request_id: requestId,
        path: req.path,
        code: problem.code,
        detail: problem.detail,
      });
    else logger.error('unhandled error', { incident_id: incidentId, request_id: requestId, path: req.path, error });
    const shown =
      problem ??
      new Problem(
        'internal_error',
        `Something went wrong on our side; quote incident id ${incidentId} (request id ${requestId})`,
      );
    sendProblem(res, shown, instance, incidentId);
  };
}
