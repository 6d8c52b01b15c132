import { createHash } from 'node:crypto';
import type { LinkAction, LinkRefusalCode } from '../../domain/notifications/links';
import type { DecisionItem } from '../../services/notifications/items';
import type { Reply } from '../route';

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fff; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; }
dl { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: 0.25rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
button, a.button { display: inline-block; font: inherit; font-size: 1.125rem; padding: 0.75rem 1.25rem; min-height: 44px;
  border-radius: 0.375rem; border: 2px solid #1f3a8a; background: #1f3a8a; color: #fff; cursor: pointer; text-decoration: none; }
button.reject { background: #991b1b; border-color: #991b1b; }
button:focus-visible, a:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
a { color: #1f3a8a; }
`;

/** Pages a bearer link opens: no script, forms only to this origin, never framed, never cached, no Referer to leak the link. */
function page(status: number, title: string, body: string): Reply {
  const style = createHash('sha256').update(STYLE).digest('base64');
  return {
    status,
    headers: {
      'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${style}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Robots-Tag': 'noindex',
    },
    text: {
      contentType: 'text/html; charset=utf-8',
      content: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · Handoff</title><style>${STYLE}</style></head>
<body><main>
<h1>${escape(title)}</h1>
${body}
</main></body>
</html>
`,
    },
  };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function details(item: DecisionItem): string {
  const rows = item.details.map(([term, value]) => `<dt>${escape(term)}</dt><dd>${escape(value)}</dd>`).join('\n');
  return `<dl aria-label="The request">\n${rows}\n</dl>`;
}

const VERB: Record<LinkAction, { ask: string; button: string; done: string }> = {
  approve: { ask: 'Approve this request?', button: 'Yes, approve', done: 'Approved' },
  reject: { ask: 'Reject this request?', button: 'Yes, reject', done: 'Rejected' },
};

/** The confirmation a link opens: what it decides, and the one form that decides it. Opening it decides nothing. */
export function confirmationPage(token: string, action: LinkAction, item: DecisionItem): Reply {
  const verb = VERB[action];
  return page(
    200,
    verb.ask,
    `<p>${escape(item.summary)}</p>
${details(item)}
<form method="post" action="/links">
<input type="hidden" name="token" value="${escape(token)}">
<input type="hidden" name="action" value="${action}">
<p><button type="submit"${action === 'reject' ? ' class="reject"' : ''}>${verb.button}</button></p>
</form>
<p>Nothing is decided until you press the button. This link works once. <a href="/inbox">Open your inbox</a> to see everything waiting for you.</p>`,
  );
}

export function decidedPage(action: LinkAction, item: DecisionItem): Reply {
  return page(
    200,
    VERB[action].done,
    `<p role="status">${escape(VERB[action].done)}: ${escape(item.summary)}. Thank you; you may close this page.</p>`,
  );
}

/** Each refusal with its status: unknown 404, spent or expired 410, decided 409, someone else's 403. */
const REFUSALS: Record<LinkRefusalCode | 'decision_refused' | 'cross_site', { status: number; title: string }> = {
  link_not_found: { status: 404, title: 'Link not found' },
  link_used: { status: 410, title: 'This link has been used' },
  link_expired: { status: 410, title: 'This link has expired' },
  item_decided: { status: 409, title: 'Already decided' },
  not_the_person: { status: 403, title: 'Not yours to decide' },
  passkey_required: { status: 200, title: 'Decide in your inbox' },
  decision_refused: { status: 422, title: 'The decision was refused' },
  cross_site: { status: 403, title: 'Confirm on this site' },
};

export function refusalPage(code: keyof typeof REFUSALS, detail: string): Reply {
  const { status, title } = REFUSALS[code];
  return page(status, title, `<p role="alert">${escape(detail)}</p>\n<p><a href="/inbox">Open your inbox</a></p>`);
}
