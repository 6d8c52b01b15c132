import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';
import { PASSKEY_BROWSER_SCRIPT, pageAnswer } from './passkey-browser-script';

/**
 * The browser side of the passkey ceremonies: completes an enrollment handed over as #enrollment=<options>
 * (base64url JSON, in the fragment so that the challenge never reaches a log), registers a recovery's new
 * passkey handed over as #recovery=<options>, and signs in. Binary fields travel as base64url, as
 * PublicKeyCredential.toJSON() writes them. A recovery's registration is shown, not posted: the recovery
 * desk, which holds the power to open the request, hands it back as the request's newCredential.
 */
const SCRIPT = `${PASSKEY_BROWSER_SCRIPT}
const status = document.getElementById('status');
function show(state, message, details) {
  status.dataset.state = state;
  status.textContent = message;
  for (const [key, value] of Object.entries(details || {})) status.dataset[key] = value;
}
const fragment = new URLSearchParams(location.hash.slice(1));
const enrollment = fragment.get('enrollment');
const recovery = fragment.get('recovery');
const creationOptions = (encoded) => {
  const options = JSON.parse(new TextDecoder().decode(b64u.decode(encoded)));
  return { ...options, challenge: b64u.decode(options.challenge), user: { ...options.user, id: b64u.decode(options.user.id) }, excludeCredentials: descriptors(options.excludeCredentials) };
};
const enrollButton = document.getElementById('enroll');
enrollButton.hidden = !enrollment;
enrollButton.addEventListener('click', async () => {
  try {
    const credential = await navigator.credentials.create({ publicKey: creationOptions(enrollment) });
    const result = await post('/v1/webauthn/registration', { response: registrationJson(credential) });
    show('enrolled', 'Your passkey is registered: ' + result.passport.did, { did: result.passport.did, passportId: result.passport.passport_id });
  } catch (error) {
    show('error', 'The enrollment failed: ' + error.message);
  }
});
const recoverButton = document.getElementById('recover');
recoverButton.hidden = !recovery;
recoverButton.addEventListener('click', async () => {
  try {
    const credential = await navigator.credentials.create({ publicKey: creationOptions(recovery) });
    const registration = JSON.stringify(registrationJson(credential));
    document.getElementById('registration').value = registration;
    document.getElementById('handback').hidden = false;
    show('registered', 'Your recovery passkey is ready: hand the registration below to your recovery desk', { credentialId: credential.id });
  } catch (error) {
    show('error', 'The recovery passkey could not be made: ' + error.message);
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
<p><button id="enroll" type="button" hidden>Create my passkey</button> <button id="recover" type="button" hidden>Create my recovery passkey</button> <button id="sign-in" type="button">Sign in with a passkey</button></p>
<p id="status" role="status" aria-live="polite"></p>
<p id="handback" hidden><label for="registration">Registration for your recovery desk (public: it holds no secret)</label><br><textarea id="registration" rows="6" cols="80" readonly></textarea></p>
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
    summary:
      'The page that registers a person’s passkey (from an enrollment_url or a recovery’s registration_url) and signs in with it',
    tags: ['Passkeys'],
    auth: 'public',
    rateLimit: 'default',
    responses: { 200: { description: 'The page', contentType: 'text/html', schema: z.string() } },
    handler: () => pageAnswer({ html: PAGE, script: SCRIPT }),
  });
}
