import type { Client } from '@temporalio/client';
import type { RequestHandler, Response } from 'express';
import type { Logger } from '../../lib/logger';
import { sendProblem, unavailableProblem } from './problem';
import { requestIdOf } from './request-id';

interface Deadline {
  at: number;
  signal: AbortSignal;
  /** Set once the deadline answered the request: whatever the handler does later is not sent. */
  passed: boolean;
  /** Moves the deadline byMs later. */
  extend(byMs: number): void;
}

const deadlines = new WeakMap<Response, Deadline>();

/** Whether the deadline answered this request (503) before its handler did. */
export function answeredByDeadline(res: Response): boolean {
  return deadlines.get(res)?.passed ?? false;
}

/**
 * Moves the request's deadline byMs later: for a request that waits on purpose (a long-poll), whose wait is bounded by
 * the caller's own request, so that the wait is not taken for a dependency that hangs.
 */
export function extendDeadline(res: Response, byMs: number): void {
  deadlines.get(res)?.extend(byMs);
}

/**
 * Every request answers within timeoutMs: if its handler has not answered by then (a dependency that hangs),
 * it gets 503 service_unavailable with Retry-After, and its Temporal calls are cancelled. Database waits are
 * bounded by the pool's own timeouts, which are shorter.
 */
export function requestDeadline(deps: { timeoutMs: number; logger: Logger }): RequestHandler {
  return (req, res, next) => {
    const controller = new AbortController();
    const pass = () => {
      if (res.headersSent || res.writableEnded) return;
      deadline.passed = true;
      controller.abort(new Error(`the request passed its deadline of ${deps.timeoutMs} ms`));
      deps.logger.warn('request passed its deadline', {
        request_id: requestIdOf(res),
        method: req.method,
        path: req.path,
        timeout_ms: deps.timeoutMs,
      });
      const instance = req.originalUrl.split('?')[0] ?? req.path;
      sendProblem(
        res,
        unavailableProblem(
          `The request did not finish within ${deps.timeoutMs} ms: a dependency is slow or down. Retry with the same Idempotency-Key`,
        ),
        instance,
      );
    };
    let timer = setTimeout(pass, deps.timeoutMs);
    let settled = false;
    const deadline: Deadline = {
      at: Date.now() + deps.timeoutMs,
      signal: controller.signal,
      passed: false,
      extend(byMs) {
        if (deadline.passed || settled) return;
        clearTimeout(timer);
        deadline.at += byMs;
        timer = setTimeout(pass, Math.max(0, deadline.at - Date.now()));
      },
    };
    deadlines.set(res, deadline);
    const clear = () => {
      settled = true;
      clearTimeout(timer);
    };
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}

/**
 * Runs the rest of the request with its Temporal calls bound to its deadline's signal. Mounted after the body
 * is read: the call context is carried by async continuations, which stream events would not carry.
 */
export function temporalCallsWithinDeadline(temporal: Client): RequestHandler {
  return (_req, res, next) => {
    const deadline = deadlines.get(res);
    if (!deadline) {
      next();
      return;
    }
    void temporal.withAbortSignal(deadline.signal, () => {
      next();
      return Promise.resolve();
    });
  };
}
