import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';
import { PASSKEY_BROWSER_SCRIPT, pageAnswer } from './passkey-browser-script';

/**
 * The reviewer's inbox: sign in with a passkey (the session kept in sessionStorage, for this tab only),
 * the pending approval requests addressed to the signed-in person, and an answer with a comment. Everything
 * goes through the public API with the session as the bearer token; the page itself holds no data.
 */
const SCRIPT = `${PASSKEY_BROWSER_SCRIPT}
const SESSION_KEY = 'handoff.inbox.session';
const $ = (id) => document.getElementById(id);
let session = JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null');
let items = [];
let selected = null;
/** A problem response as one line: its detail (or title), and each field's error. */
function problemText(answer, status) {
  const fields = (answer.errors || []).map((e) => (e.field ? e.field + ' ' : '') + e.message).join('; ');
  return (answer.detail || answer.title || 'HTTP ' + status) + (fields ? ': ' + fields : '');
}
async function api(method, path, body) {
  const headers = { authorization: 'Bearer ' + session.token };
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 401) signOut();
  if (!response.ok) throw new Error(problemText(answer, response.status));
  return answer;
}
function left(expiresAt) {
  const minutes = Math.floor((Date.parse(expiresAt) - Date.now()) / 60000);
  if (!(minutes > 0)) return 'expired';
  if (minutes < 120) return minutes + ' min left';
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? hours + ' h left' : Math.floor(hours / 24) + ' days left';
}
function urgency(expiresAt) {
  const ms = Date.parse(expiresAt) - Date.now();
  return ms < 3600000 ? 'urgent' : ms < 86400000 ? 'due today' : 'not urgent';
}
function text(tag, content, attributes) {
  const element = document.createElement(tag);
  element.textContent = content;
  for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, value);
  return element;
}
function showSignedIn() {
  $('sign-in-section').hidden = Boolean(session);
  $('queue-section').hidden = !session;
  $('who').textContent = session ? 'Signed in as ' + session.did : '';
  if (!session) $('item-section').hidden = true;
}
function signOut() {
  session = null;
  sessionStorage.removeItem(SESSION_KEY);
  showSignedIn();
}
function renderQueue() {
  const list = $('queue');
  list.replaceChildren();
  $('queue-empty').hidden = items.length > 0;
  for (const item of items) {
    const button = text('button', '', { type: 'button', 'data-approval-id': item.id, 'aria-pressed': String(selected === item.id) });
    button.append(
      text('strong', item.action_description),
      text('span', 'Risk: ' + item.risk_level),
      text('span', 'Urgency: ' + urgency(item.expires_at)),
      text('span', left(item.expires_at)),
    );
    button.addEventListener('click', () => select(item.id));
    const entry = document.createElement('li');
    entry.append(button);
    list.append(entry);
  }
}
async function loadQueue() {
  $('queue-error').textContent = '';
  try {
    const page = await api('GET', '/v1/approvals?status=pending&sort=expires_at&limit=100&approver=' + encodeURIComponent(session.did));
    items = page.data;
    renderQueue();
  } catch (error) {
    $('queue-error').textContent = 'The queue could not be read: ' + error.message;
  }
}
function select(id) {
  const item = items.find((candidate) => candidate.id === id);
  selected = id;
  renderQueue();
  const details = $('details');
  details.replaceChildren();
  const rows = [
    ['Action', item.action_description],
    ['Risk', item.risk_level],
    ['Urgency', urgency(item.expires_at)],
    ['Time left', left(item.expires_at) + ' (until ' + item.expires_at + ')'],
    ['Agent', item.agent_id || '—'],
    ['Requested by', item.requester_passport_id],
    ['Risk factors', item.risk_factors.map((f) => f.factor + ' (' + f.severity + ')').join('; ') || '—'],
    ['Request data', JSON.stringify(item.request_data, null, 2)],
  ];
  for (const [term, value] of rows) details.append(text('dt', term), text('dd', value));
  $('comment').value = '';
  $('answer-error').textContent = '';
  $('answer-status').textContent = '';
  $('item-section').hidden = false;
  $('item-heading').focus();
}
async function answer(decision) {
  $('answer-error').textContent = '';
  const comment = $('comment').value.trim();
  try {
    const answered = await api('POST', '/v1/approvals/' + encodeURIComponent(selected) + '/respond', comment ? { decision, comment } : { decision });
    $('answer-status').textContent = 'Request ' + answered.status + '.';
    items = items.filter((item) => item.id !== selected);
    selected = null;
    renderQueue();
    $('queue-heading').focus();
  } catch (error) {
    $('answer-error').textContent = 'The answer was not recorded: ' + error.message;
    $('comment').focus();
  }
}
$('sign-in').addEventListener('click', async () => {
  $('sign-in-error').textContent = '';
  try {
    const signed = await passkeySession();
    session = { token: signed.session_token, did: signed.did, passport_id: signed.passport_id, expires_at: signed.expires_at };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
    showSignedIn();
    await loadQueue();
    $('queue-heading').focus();
  } catch (error) {
    $('sign-in-error').textContent = 'Signing in failed: ' + error.message;
  }
});
$('sign-out').addEventListener('click', signOut);
$('refresh').addEventListener('click', loadQueue);
$('approve').addEventListener('click', () => answer('approved'));
$('reject').addEventListener('click', () => answer('rejected'));
if (session && Date.parse(session.expires_at) <= Date.now()) signOut();
showSignedIn();
if (session) loadQueue();
`;

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; overflow-wrap: anywhere; color: #1a1a1a; background: #fff; margin: 0 auto; max-width: 48rem; padding: 1rem; }
button {
  font: inherit; min-height: 2.75rem; padding: 0.5rem 1rem; border: 2px solid #1f3a8a; border-radius: 0.375rem;
  background: #1f3a8a; color: #fff; cursor: pointer;
}
button.secondary { background: #fff; color: #1f3a8a; }
button:focus-visible, textarea:focus-visible, [tabindex="-1"]:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
#queue { list-style: none; padding: 0; }
#queue button {
  display: flex; flex-direction: column; align-items: flex-start; width: 100%; margin: 0 0 0.5rem;
  background: #f3f4f6; color: #1a1a1a; border-color: #4b5563; text-align: left;
}
#queue button[aria-pressed="true"] { border-color: #1f3a8a; background: #e0e7ff; }
dl { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: 0.25rem 1rem; }
dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
textarea { font: inherit; width: 100%; box-sizing: border-box; min-height: 5rem; }
.error { color: #b91c1c; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Inbox · Handoff</title><style>${STYLE}</style></head>
<body>
<main>
<h1>Inbox</h1>
<section id="sign-in-section" aria-labelledby="sign-in-heading">
<h2 id="sign-in-heading">Sign in</h2>
<p><button id="sign-in" type="button" aria-describedby="sign-in-error">Sign in with a passkey</button></p>
<p id="sign-in-error" class="error" role="alert"></p>
<p>No passkey yet? Open the enrollment link your administrator sent you.</p>
</section>
<section id="queue-section" aria-labelledby="queue-heading" hidden>
<p><span id="who"></span> <button id="sign-out" type="button" class="secondary">Sign out</button></p>
<h2 id="queue-heading" tabindex="-1">My queue</h2>
<p><button id="refresh" type="button" class="secondary">Refresh</button></p>
<p id="queue-error" class="error" role="alert"></p>
<p id="queue-empty" hidden>Nothing is waiting for you.</p>
<ul id="queue" aria-label="Approval requests waiting for you"></ul>
<p id="answer-status" role="status" aria-live="polite"></p>
</section>
<section id="item-section" aria-labelledby="item-heading" hidden>
<h2 id="item-heading" tabindex="-1">Request</h2>
<dl id="details"></dl>
<label for="comment">Comment</label>
<textarea id="comment" aria-describedby="answer-error"></textarea>
<p id="answer-error" class="error" role="alert"></p>
<p><button id="approve" type="button">Approve</button> <button id="reject" type="button" class="secondary">Reject</button></p>
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;

export function registerInboxPage(api: ApiBuilder): void {
  api.route({
    method: 'get',
    path: '/inbox',
    operationId: 'getInboxPage',
    summary: 'The reviewer’s inbox: sign in with a passkey, see the approval requests addressed to you, answer them',
    tags: ['Passkeys'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: z.string() } },
    handler: () => pageAnswer({ html: PAGE, script: SCRIPT, style: STYLE }),
  });
}
