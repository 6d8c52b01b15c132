import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';
import { PASSKEY_BROWSER_SCRIPT, pageAnswer } from './passkey-browser-script';

/**
 * The browser side of the passkey ceremonies: completes an enrollment handed over as #enrollment=<options>
 * (base64url JSON, in the fragment so that the challenge never reaches a log) and signs in. Binary fields
 * travel as base64url, as PublicKeyCredential.toJSON() writes them.
 */
const SCRIPT = `${PASSKEY_BROWSER_SCRIPT}
const status = document.getElementById('status');
function show(state, message, details) {
  status.dataset.state = state;
  status.textContent = message;
  for (const [key, value] of Object.entries(details || {})) status.dataset[key] = value;
}
const enrollment = new URLSearchParams(location.hash.slice(1)).get('enrollment');
const enrollButton = document.getElementById('enroll');
enrollButton.hidden = !enrollment;
enrollButton.addEventListener('click', async () => {
  try {
    const options = JSON.parse(new TextDecoder().decode(b64u.decode(enrollment)));
    const publicKey = { ...options, challenge: b64u.decode(options.challenge), user: { ...options.user, id: b64u.decode(options.user.id) }, excludeCredentials: descriptors(options.excludeCredentials) };
    const credential = await navigator.credentials.create({ publicKey });
    const result = await post('/v1/webauthn/registration', { response: registrationJson(credential) });
    show('enrolled', 'Your passkey is registered: ' + result.passport.did, { did: result.passport.did, passportId: result.passport.passport_id });
  } catch (error) {
    show('error', 'The enrollment failed: ' + error.message);
  }
});
document.getElementById('sign-in').addEventListener('click', async () => {
  try {
    const session = await passkeySession();
    show('signed-in', 'Signed in as ' + session.did, { did: session.did, passportId: session.passport_id, expiresAt: session.expires_at });
  } catch (error) {
    show('error', 'Signing in failed: ' + error.message);
  }
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Passkeys · Handoff</title></head>
<body>
<h1>Passkeys</h1>
<p><button id="enroll" type="button" hidden>Create my passkey</button> <button id="sign-in" type="button">Sign in with a passkey</button></p>
<p id="status" role="status" aria-live="polite"></p>
<p><a href="/inbox">Open the inbox</a></p>
<script>${SCRIPT}</script>
</body>
</html>
`;

export function registerPasskeyPage(api: ApiBuilder): void {
  api.route({
    method: 'get',
    path: '/passkeys',
    operationId: 'getPasskeyPage',
    summary: 'The page that registers a person’s passkey (from an enrollment_url) and signs in with it',
    tags: ['Passkeys'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: z.string() } },
    handler: () => pageAnswer({ html: PAGE, script: SCRIPT }),
  });
}
