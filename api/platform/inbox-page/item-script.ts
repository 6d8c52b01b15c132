/**
 * An item of the inbox script: its task and context, agent, recommendation and confidence, risk factors,
 * safety analysis, chain and provenance so far; the decision signed by the person's passkey over the hash of
 * the canonical decision (docs/decision-signatures.md) and sent to POST /v1/inbox/items/{id}/decision.
 */
export const ITEM_SCRIPT = `
let current = null;
/** An object as one "key: value" line per member, nested values as JSON. */
const lines = (object) => Object.entries(object)
  .map(([key, value]) => key + ': ' + (typeof value === 'string' ? value : JSON.stringify(value)))
  .join('\\n') || '—';
function describe(item) {
  const rows = [
    ['Task', item.task_type || item.title],
    ['Agent', item.agent_id || '—'],
    ['Recommendation', item.recommendation || '—'],
    ['Confidence', item.confidence === null ? '—' : Math.round(item.confidence * 100) + ' %'],
    ['Urgency', item.urgency],
    ['Risk', item.risk_level],
    ['Time left', timeLeft(item) + (item.deadline ? ' (' + item.deadline + ')' : '')],
    ['Risk factors', item.risk_factors.map((f) => f.factor + ' (' + f.severity + ')').join('; ') || '—'],
    ['Safety analysis', item.safety_analysis ? lines(item.safety_analysis) : '—'],
    ['Context', lines(item.context)],
  ];
  const details = $('details');
  details.replaceChildren();
  for (const [term, value] of rows) details.append(text('dt', term), text('dd', value));
  const chain = $('chain');
  chain.replaceChildren(...item.escalation_chain.map((step) =>
    text('li', 'Level ' + step.level + ' · ' + (step.name || step.did)
      + (step.covering_for ? ', covering for ' + (step.covering_for_name || step.covering_for) : '')
      + ' (' + step.escalation_level + ') since ' + step.since + (step.current ? ' · holds it now' : ''))));
  if (item.escalation_chain.length === 0) chain.append(text('li', 'Not escalated: it came to you directly.'));
  $('chain-next').textContent = item.deadline_kind === 'escalates' ? 'Moves on to the next level at ' + item.deadline + ' unless decided.' : '';
  $('provenance').replaceChildren(...item.provenance.map((step) =>
    text('li', step.timestamp + ' · ' + step.action + ' by ' + step.actor + (step.reasoning ? ': ' + step.reasoning : ''))));
}
async function openItem(id) {
  selected = id;
  renderQueue();
  $('item-gone').textContent = '';
  $('answer-error').textContent = '';
  try {
    current = await api('GET', '/v1/inbox/items/' + encodeURIComponent(id));
  } catch (error) {
    $('queue-error').textContent = 'The item could not be read: ' + error.message;
    return;
  }
  $('item-heading').textContent = current.title;
  describe(current);
  renderParams(current);
  clearFieldErrors();
  $('comment').value = '';
  $('approve-modified').textContent = current.kind === 'routing' ? 'Approve with changed recommendation' : 'Approve with changed parameters';
  $('item-section').hidden = false;
  $('item-heading').focus();
}
const utf8 = (value) => new TextEncoder().encode(value);
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
/** RFC 8785 for JSON values: keys sorted by UTF-16 code units, no whitespace, numbers and strings as JSON.stringify writes them. */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
  return '{' + keys.map((key) => JSON.stringify(key) + ':' + canonical(value[key])).join(',') + '}';
}
/** The passkey's assertion over SHA-256(canonical decision), with a nonce the service issued to this person. */
async function signDecision(itemId, body) {
  const { nonce, rp_id } = await api('POST', '/v1/inbox/decision-nonces');
  const decision = {
    format: 'handoff.decision/v1', item_id: itemId, decision: body.decision,
    modified_parameters: body.modified_parameters || null,
    comment_sha256: body.comment ? hex(await crypto.subtle.digest('SHA-256', utf8(body.comment))) : null, nonce,
  };
  const challenge = await crypto.subtle.digest('SHA-256', utf8(canonical(decision)));
  const allowCredentials = session.credential_id ? [{ type: 'public-key', id: b64u.decode(session.credential_id) }] : [];
  const credential = await navigator.credentials.get({ publicKey: { challenge, rpId: rp_id, allowCredentials, userVerification: 'required' } });
  const r = credential.response;
  return {
    nonce, credential_id: b64u.encode(credential.rawId), authenticator_data: b64u.encode(r.authenticatorData),
    client_data_json: b64u.encode(r.clientDataJSON), signature: b64u.encode(r.signature),
  };
}
async function decide(choice) {
  clearFieldErrors();
  const item = current;
  const comment = $('comment').value.trim();
  const body = { decision: choice };
  if (comment) body.comment = comment;
  if (comment.length > 10000) return fieldError('comment', 'Use at most 10,000 characters').focus();
  if (choice === 'modified') {
    const values = modifiedParameters();
    if (!values) return;
    body.modified_parameters = values;
    if (item.kind !== 'routing') body.decision = 'approved';
  }
  try {
    body.signature = await signDecision(item.item_id, body);
    const decided = await api('POST', '/v1/inbox/items/' + encodeURIComponent(item.item_id) + '/decision', body);
    $('answer-status').textContent = item.title + ': ' + decided.status + ', signed by your passkey.';
    items = items.filter((candidate) => candidate.item_id !== item.item_id);
    selected = null;
    current = null;
    $('item-section').hidden = true;
    renderQueue();
    $('queue-heading').focus();
  } catch (error) {
    $('answer-error').textContent = 'The decision was not recorded: ' + error.message;
    showServiceErrors(error);
  }
}
`;
