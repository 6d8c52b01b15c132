import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes the caller's X-Request-ID when it is a sane token, else makes one; echoes it on the response. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && ACCEPTABLE.test(given) ? given : `req_${randomUUID()}`;
    res.locals.requestId = id;
    res.set('X-Request-ID', id);
    next();
  };
}

/** The request's id, as requestId() set it. */
export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}
