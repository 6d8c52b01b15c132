import express, { type Request, type RequestHandler } from 'express';

/** The routes that take HTML form bodies: the decision link's confirmation form and Slack's interactivity callback. */
export const FORM_BODY_PATHS = ['/links', '/v1/slack/actions'];

const rawBodies = new WeakMap<Request, string>();

/** The body as sent, for a signature computed over its bytes (Slack's). */
export function rawBodyOf(req: Request): string {
  return rawBodies.get(req) ?? '';
}

/** Parses application/x-www-form-urlencoded bodies on FORM_BODY_PATHS, keeping the raw text beside the fields. */
export function formBody(): RequestHandler {
  return express.urlencoded({
    extended: false,
    limit: '64kb',
    type: (req) =>
      FORM_BODY_PATHS.includes((req as Request).path) &&
      (req as Request).is('application/x-www-form-urlencoded') !== false,
    verify: (req, _res, buffer) => {
      rawBodies.set(req as Request, buffer.toString('utf8'));
    },
  });
}
