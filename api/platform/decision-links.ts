import type { Request } from 'express';
import { LINK_ACTIONS } from '../../domain/notifications/links';
import { decideByLink, viewLink, type DecideDeps } from '../../services/notifications/decide';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';
import { confirmationPage, decidedPage, refusalPage } from './decision-link-page';

const TokenSchema = z
  .string()
  .max(200)
  .openapi({ description: 'The link’s single-use token (hdl_…), as the message gave it' });

const DecideByLinkSchema = z
  .object({ token: TokenSchema, action: z.enum(LINK_ACTIONS).openapi({ description: 'The action the link is for' }) })
  .openapi('DecideByLink');

const PAGE = { contentType: 'text/html', schema: z.string() };
/** A refusal: a page for the person's browser, or a problem for a request the route's checks refuse first. */
const REFUSAL_PAGE = { alternatives: { 'text/html': z.string() } };

/**
 * A form from another site is refused: the token is the credential, so only a page of ours may send it, and a
 * browser says where a form came from (Sec-Fetch-Site, else Origin).
 */
function crossSite(req: Request, publicBaseUrl: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.get('origin');
  return origin !== undefined && origin !== 'null' && origin !== new URL(publicBaseUrl).origin;
}

export function registerDecisionLinkRoutes(api: ApiBuilder, deps: DecideDeps & { publicBaseUrl: string }): void {
  api.route({
    method: 'get',
    path: '/links',
    operationId: 'getDecisionLinkPage',
    summary: 'The page an e-mailed decision link opens: what it decides, and a button to confirm',
    description:
      'Opening a link never decides (mail scanners and previews open links): the page shows the request and a form that POSTs ' +
      'to /links. A link that is unknown answers 404, used or expired 410, whose request is decided 409, no longer the ' +
      'person’s to answer 403; under an organization policy that asks for a passkey signature at the request’s risk, the page ' +
      'leads to the inbox instead.',
    tags: ['Decision links'],
    auth: 'public',
    rateLimit: 'default',
    request: { query: z.object({ token: TokenSchema }) },
    responses: {
      200: { description: 'The confirmation page', ...PAGE },
      403: { description: 'No longer the person’s to answer', ...REFUSAL_PAGE },
      404: { description: 'Not found', ...REFUSAL_PAGE },
      409: { description: 'Already decided', ...REFUSAL_PAGE },
      410: { description: 'Used or expired', ...REFUSAL_PAGE },
    },
    handler: async ({ query }) => {
      const view = await viewLink(deps, query.token, 'email_link');
      if (!view.ok) return refusalPage(view.code, view.detail);
      return confirmationPage(query.token, view.link.action, view.item);
    },
  });

  api.route({
    method: 'post',
    path: '/links',
    operationId: 'decideByLink',
    summary: 'Decide a request with a single-use link from an e-mail (the confirmation page’s form)',
    description:
      'The link is the credential: it acts as the one person it was sent to, for one request and one action, once. The request’s ' +
      'live state is checked again, then the decision is recorded as that person’s answer, its provenance naming the link ' +
      '(credential email_link). Answers a page: 200 decided; 404 unknown link; 410 used or expired; 409 already decided; 403 no ' +
      'longer the person’s, or a form from another site; 303 to /inbox where a passkey signature is required.',
    tags: ['Decision links'],
    auth: 'public',
    rateLimit: 'default',
    request: { body: DecideByLinkSchema, bodyTypes: ['application/x-www-form-urlencoded', 'application/json'] },
    responses: {
      200: { description: 'Decided', ...PAGE },
      303: { description: 'A passkey signature is required: decide in the inbox', ...PAGE },
      403: { description: 'No longer the person’s to answer, or a form from another site', ...REFUSAL_PAGE },
      404: { description: 'Not found', ...REFUSAL_PAGE },
      409: { description: 'Already decided', ...REFUSAL_PAGE },
      410: { description: 'Used or expired', ...REFUSAL_PAGE },
      422: { description: 'The decision was refused', ...REFUSAL_PAGE },
    },
    handler: async ({ req, body }) => {
      if (crossSite(req, deps.publicBaseUrl))
        return refusalPage('cross_site', 'This form came from another site. Open the link from your e-mail again.');
      const decided = await decideByLink(deps, body.token, { channel: 'email_link', action: body.action });
      if (decided.ok) return decidedPage(decided.link.action, decided.item);
      if (decided.code === 'passkey_required')
        return {
          status: 303,
          headers: { Location: '/inbox' },
          text: { contentType: 'text/html; charset=utf-8', content: '<a href="/inbox">Decide in the inbox</a>' },
        };
      return refusalPage(decided.code, decided.detail);
    },
  });
}
