import { receiveCallback } from '../../services/connectors/callback';
import type { InstallDeps } from '../../services/connectors/settings';
import type { RefusedCallback, SettledPage } from '../../domain/marketplace/oauth-callback';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';

/** Each ending's page: its HTTP status, heading and what the person can do next. Never the code or the state. */
const PAGES: Record<RefusedCallback | SettledPage, { status: number; heading: string; text: string }> = {
  connected: {
    status: 200,
    heading: 'Connected',
    text: 'The connector is installed and active. You can close this window.',
  },
  finishing: {
    status: 202,
    heading: 'Finishing the connection',
    text: 'The provider approved the connection; it is being completed and will show as active in your installations shortly.',
  },
  denied: {
    status: 403,
    heading: 'Connection declined',
    text: 'Access was not granted, so the connector was not installed. Install it again to start over.',
  },
  failed: {
    status: 502,
    heading: 'The connection could not be completed',
    text: 'The provider did not issue tokens for this install. Install the connector again to start over.',
  },
  unknown_state: {
    status: 400,
    heading: 'This link is not valid',
    text: 'This sign-in link was not issued by this service. Start the install again from your installations.',
  },
  state_used: {
    status: 400,
    heading: 'This link was already used',
    text: 'Each install link works once. If the connector is not active, install it again for a new link.',
  },
  state_expired: {
    status: 400,
    heading: 'This link has expired',
    text: 'Install links work for 30 minutes and only for the latest install. Install the connector again for a new link.',
  },
};

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(ending: RefusedCallback | SettledPage): string {
  const { heading, text } = PAGES[ending];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(heading)} · Handoff</title></head>
<body>
<main data-outcome="${ending}">
<h1>${escape(heading)}</h1>
<p>${escape(text)}</p>
</main>
</body>
</html>
`;
}

const CallbackQuerySchema = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
  iss: z.string().max(2000).optional(),
});

/** GET /v1/oauth/callback: where providers send the person back after consent; answers a page, never a session. */
export function registerOAuthCallbackRoute(api: ApiBuilder, deps: InstallDeps): void {
  api.route({
    method: 'get',
    path: '/v1/oauth/callback',
    operationId: 'oauthCallback',
    summary: 'Where an OAuth provider sends the person back after a connector install',
    description:
      'Public, and no authentication to this service: the state (from the install’s authorization_url) is claimed once, and its ' +
      'install is told the code (or the refusal). Answers an HTML page whose data-outcome says how it ended: connected (200), finishing ' +
      '(202: the exchange is still under way), denied (403: access_denied), failed (502: the provider issued no tokens), unknown_state, ' +
      'state_used or state_expired (400: a forged, replayed, or expired or superseded link, which changes nothing).',
    tags: ['Marketplace'],
    auth: 'public',
    rateLimit: 'default',
    request: { query: CallbackQuerySchema },
    responses: {
      200: { description: 'connected', contentType: 'text/html', schema: z.string() },
      202: { description: 'finishing', contentType: 'text/html', schema: z.string() },
      // A malformed query is a problem (application/problem+json); the handler's refusals are pages for the browser.
      400: { description: 'unknown_state, state_used or state_expired', alternatives: { 'text/html': z.string() } },
      403: { description: 'denied', alternatives: { 'text/html': z.string() } },
      502: { description: 'failed', contentType: 'text/html', schema: z.string() },
    },
    handler: async ({ query }) => {
      const { page: ending } = await receiveCallback(deps, query);
      return {
        status: PAGES[ending].status,
        text: { contentType: 'text/html; charset=utf-8', content: page(ending) },
        headers: {
          'Cache-Control': 'no-store',
          // The URL held a code and a state: no page this one links to may learn it.
          'Referrer-Policy': 'no-referrer',
          'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
        },
      };
    },
  });
}
