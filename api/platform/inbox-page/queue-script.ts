/**
 * The queue's half of the inbox script: the session (sessionStorage, this tab only), calls to the API with it
 * as the bearer token, and the live queue. EventSource cannot send an Authorization header, and a token in a
 * URL ends up in logs, so the stream is read with fetch: GET /v1/inbox/events with the header, its body parsed
 * as server-sent events, reconnected when the server ends it (it does, so that a revoked session stops).
 */
export const QUEUE_SCRIPT = `
const SESSION_KEY = 'handoff.inbox.session';
const $ = (id) => document.getElementById(id);
let session = JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null');
let items = [];
let selected = null;
let stream = null;
/** A problem response as an Error with its detail (or title) and each field's error. */
function problemError(answer, status) {
  const error = new Error(answer.detail || answer.title || 'HTTP ' + status);
  error.fields = answer.errors || [];
  error.code = answer.code;
  return error;
}
async function api(method, path, body) {
  const headers = { authorization: 'Bearer ' + session.token };
  if (body) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 401) signOut();
  if (!response.ok) throw problemError(answer, response.status);
  return answer;
}
function text(tag, content, attributes) {
  const element = document.createElement(tag);
  element.textContent = content;
  for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, value);
  return element;
}
function timeLeft(item) {
  if (!item.deadline) return 'no deadline';
  const minutes = Math.floor((Date.parse(item.deadline) - Date.now()) / 60000);
  const verb = item.deadline_kind === 'escalates' ? 'moves on' : 'expires';
  if (!(minutes > 0)) return 'overdue';
  if (minutes < 120) return verb + ' in ' + minutes + ' min';
  const hours = Math.floor(minutes / 60);
  return verb + ' in ' + (hours < 48 ? hours + ' h' : Math.floor(hours / 24) + ' days');
}
const KIND = { routing: 'Escalated to you', approval: 'Addressed to you', escalation: 'Escalation queue' };
function badges(item) {
  const row = text('span', '', { class: 'badges' });
  row.append(
    text('span', KIND[item.kind]),
    text('span', 'Urgency: ' + item.urgency, { class: 'urgency-' + item.urgency }),
    text('span', 'Risk: ' + item.risk_level, { class: 'risk-' + item.risk_level }),
    text('span', timeLeft(item)),
  );
  return row;
}
function renderQueue() {
  const list = $('queue');
  list.replaceChildren();
  $('queue-empty').hidden = items.length > 0;
  for (const item of items) {
    const button = text('button', '', { type: 'button', 'data-item-id': item.item_id, 'aria-current': String(selected === item.item_id) });
    button.append(text('strong', item.title), badges(item));
    button.addEventListener('click', () => openItem(item.item_id));
    const entry = document.createElement('li');
    entry.append(button);
    list.append(entry);
  }
}
function queueChanged(next) {
  const before = new Set(items.map((item) => item.item_id));
  const arrived = next.filter((item) => !before.has(item.item_id)).length;
  items = next;
  renderQueue();
  if (arrived > 0) $('live').textContent = arrived + ' new item(s) arrived.';
  if (selected && !items.some((item) => item.item_id === selected))
    $('item-gone').textContent = 'This item has left your queue (decided, expired or moved on).';
}
/** Reads GET /v1/inbox/events as server-sent events until the server ends it or the person signs out. */
async function readStream(signal) {
  const response = await fetch('/v1/inbox/events', { headers: { authorization: 'Bearer ' + session.token, accept: 'text/event-stream' }, signal });
  if (response.status === 401) return signOut();
  if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
  $('live').textContent = 'Live: new items appear here without reloading.';
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\\n\\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = frame.split('\\n');
      const event = (lines.find((line) => line.startsWith('event: ')) || '').slice(7);
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\\n');
      if (event === 'queue') queueChanged(JSON.parse(data).data);
    }
  }
}
function startLive() {
  stopLive();
  const controller = new AbortController();
  stream = controller;
  (async () => {
    let pause = 1000;
    while (session && !controller.signal.aborted) {
      try {
        await readStream(controller.signal);
        pause = 1000;
      } catch (error) {
        if (controller.signal.aborted) return;
        $('live').textContent = 'Live updates interrupted; reconnecting…';
        pause = Math.min(pause * 2, 30000);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  })();
}
function stopLive() {
  if (stream) stream.abort();
  stream = null;
}
function showSignedIn() {
  $('sign-in-section').hidden = Boolean(session);
  $('queue-section').hidden = !session;
  $('who').textContent = session ? 'Signed in as ' + session.did : '';
  if (!session) $('item-section').hidden = true;
}
function signOut() {
  session = null;
  stopLive();
  sessionStorage.removeItem(SESSION_KEY);
  showSignedIn();
}
`;
