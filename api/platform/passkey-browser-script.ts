import { createHash } from 'node:crypto';

/**
 * What every page with a passkey ceremony runs in the browser: base64url both ways, JSON posts to this
 * origin, and the credentials as PublicKeyCredential.toJSON() writes them. passkeySession() signs in with a
 * discoverable passkey and answers with the session (POST /v1/webauthn/authentication's body) and the
 * credential it used.
 */
export const PASSKEY_BROWSER_SCRIPT = `
const b64u = {
  encode: (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, ''),
  decode: (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0)),
};
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
    response: {
      clientDataJSON: b64u.encode(r.clientDataJSON),
      attestationObject: b64u.encode(r.attestationObject),
      transports: r.getTransports ? r.getTransports() : [],
    },
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
async function passkeySession() {
  const { options } = await post('/v1/webauthn/authentication/options');
  const publicKey = { ...options, challenge: b64u.decode(options.challenge), allowCredentials: descriptors(options.allowCredentials) };
  const credential = await navigator.credentials.get({ publicKey });
  const signedIn = await post('/v1/webauthn/authentication', { response: assertionJson(credential) });
  return { ...signedIn, credential_id: credential.id };
}
`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

/**
 * A page's answer: it runs only its own inline script (and style), talks only to this origin, is never
 * framed and never cached.
 */
export function pageAnswer(page: { html: string; script: string; style?: string }) {
  const style = page.style === undefined ? '' : ` style-src 'sha256-${sha256(page.style)}';`;
  const policy =
    `default-src 'none'; script-src 'sha256-${sha256(page.script)}';${style} connect-src 'self'; ` +
    `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  return {
    status: 200,
    headers: { 'Content-Security-Policy': policy, 'Cache-Control': 'no-store' },
    text: { contentType: 'text/html; charset=utf-8', content: page.html },
  };
}
