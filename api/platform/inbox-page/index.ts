import type { ApiBuilder } from '../../route';
import { z } from '../../schemas/zod';
import { PASSKEY_BROWSER_SCRIPT, pageAnswer } from '../passkey-browser-script';
import { inboxHtml } from './html';
import { ITEM_SCRIPT } from './item-script';
import { PARAMS_SCRIPT } from './params-script';
import { QUEUE_SCRIPT } from './queue-script';
import { INBOX_STYLE } from './style';

/**
 * The reviewer's inbox: sign in with a passkey (the session kept in sessionStorage, for this tab only), the
 * person's queue from GET /v1/inbox/items kept live by /v1/inbox/events, an item, and a decision signed by
 * the passkey. Everything goes through the public API with the session as the bearer token.
 */
const SCRIPT = `${PASSKEY_BROWSER_SCRIPT}${QUEUE_SCRIPT}${PARAMS_SCRIPT}${ITEM_SCRIPT}
async function loadQueue() {
  $('queue-error').textContent = '';
  try {
    items = (await api('GET', '/v1/inbox/items')).data;
    renderQueue();
  } catch (error) {
    $('queue-error').textContent = 'The queue could not be read: ' + error.message;
  }
}
function signedIn() {
  showSignedIn();
  loadQueue();
  startLive();
}
$('sign-in').addEventListener('click', async () => {
  $('sign-in-error').textContent = '';
  try {
    const signed = await passkeySession();
    session = {
      token: signed.session_token, did: signed.did, passport_id: signed.passport_id,
      expires_at: signed.expires_at, credential_id: signed.credential_id,
    };
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
    signedIn();
    $('queue-heading').focus();
  } catch (error) {
    $('sign-in-error').textContent = 'Signing in failed: ' + error.message;
  }
});
$('sign-out').addEventListener('click', signOut);
$('approve').addEventListener('click', () => decide('approved'));
$('approve-modified').addEventListener('click', () => decide('modified'));
$('reject').addEventListener('click', () => decide('rejected'));
if (session && Date.parse(session.expires_at) <= Date.now()) signOut();
showSignedIn();
if (session) signedIn();
`;

const PAGE = inboxHtml(INBOX_STYLE, SCRIPT);

export function registerInboxPage(api: ApiBuilder): void {
  api.route({
    method: 'get',
    path: '/inbox',
    operationId: 'getInboxPage',
    summary: 'The reviewer’s inbox: sign in with a passkey, see your queue live, decide an item signed by your passkey',
    tags: ['Passkeys'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: z.string() } },
    handler: () => pageAnswer({ html: PAGE, script: SCRIPT, style: INBOX_STYLE }),
  });
}
