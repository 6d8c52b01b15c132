import { createHash } from 'node:crypto';
import type { ApiBuilder } from '../route';
import { z } from '../schemas/zod';

/**
 * The browser side of the passkey ceremonies: completes an enrollment handed over as #enrollment=<options>
 * (base64url JSON, in the fragment so that the challenge never reaches a log) and signs in. Binary fields
 * travel as base64url, as PublicKeyCredential.toJSON() writes them.
 */
const SCRIPT = `
const b64u = {
  encode: (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, ''),
  decode: (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0)),
};
const status = document.getElementById('status');
function show(state, message, details) {
  status.dataset.state = state;
  status.textContent = message;
  for (const [key, value] of Object.entries(details || {})) status.dataset[key] = value;
}
async function post(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}) });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.detail || answer.title);
  return answer;
}
const descriptors = (list) => (list || []).map((item) => ({ ...item, id: b64u.decode(item.id) }));
function registrationJson(credential) {
  const r = credential.response;
  return {
    id: credential.id, rawId: b64u.encode(credential.rawId), type: credential.type,
    response: { clientDataJSON: b64u.encode(r.clientDataJSON), attestationObject: b64u.encode(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] },
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
}
function assertionJson(credential) {
  const r = credential.response;
  return {
    id: credential.id, rawId: b64u.encode(credential.rawId), type: credential.type,
    response: {
      clientDataJSON: b64u.encode(r.clientDataJSON), authenticatorData: b64u.encode(r.authenticatorData), signature: b64u.encode(r.signature),
      userHandle: r.userHandle ? b64u.encode(r.userHandle) : undefined,
    },
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
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
    const { options } = await post('/v1/webauthn/authentication/options');
    const publicKey = { ...options, challenge: b64u.decode(options.challenge), allowCredentials: descriptors(options.allowCredentials) };
    const credential = await navigator.credentials.get({ publicKey });
    const session = await post('/v1/webauthn/authentication', { response: assertionJson(credential) });
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
<script>${SCRIPT}</script>
</body>
</html>
`;

// The page runs only its own inline script and talks only to this origin.
const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');
const CONTENT_SECURITY_POLICY = `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

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
    handler: () => ({
      status: 200,
      headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'Cache-Control': 'no-store' },
      text: { contentType: 'text/html; charset=utf-8', content: PAGE },
    }),
  });
}
