import { createHash } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { canonicalJson } from '../../domain/common/canonical-json';
import { client } from './http';
import { SoftwareAuthenticator } from './software-authenticator';
import type { Stack } from './stack';

export interface PasskeyPerson {
  authenticator: SoftwareAuthenticator;
  passport_id: string;
  did: string;
  session: string;
  as: ReturnType<typeof client>;
}

let enrolled = 0;

/** A person enrolled by an administrator and signed in with a passkey (a P-256 key in software), as the inbox's browser would. */
export async function passkeyPerson(stack: Stack, name: string): Promise<PasskeyPerson> {
  const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
  const options = await admin('POST', '/v1/webauthn/registration/options', {
    json: { userId: `${name.toLowerCase()}-${String(++enrolled)}-${String(Date.now())}@inbox.test`, displayName: name },
  });
  if (options.status !== 201) throw new Error(`enrollment options: ${JSON.stringify(options.body)}`);
  const authenticator = new SoftwareAuthenticator();
  const registered = await client(stack.baseUrl)('POST', '/v1/webauthn/registration', {
    json: {
      response: authenticator.register(options.body.options as PublicKeyCredentialCreationOptionsJSON, stack.baseUrl),
    },
  });
  if (registered.status !== 201) throw new Error(`registration: ${JSON.stringify(registered.body)}`);
  const session = registered.body.session.session_token as string;
  const passport_id = options.body.passport_id as string;
  const did = registered.body.session.did as string;
  return { authenticator, passport_id, did, session, as: client(stack.baseUrl, session) };
}

export interface DecisionBody {
  decision: string;
  comment?: string;
  modified_parameters?: Record<string, unknown>;
}

/** The challenge of docs/decision-signatures.md, computed here from the document, not from the service's code. */
export function challengeOf(itemId: string, body: DecisionBody, nonce: string): string {
  const comment = body.comment ? createHash('sha256').update(body.comment, 'utf8').digest('hex') : null;
  const decision = {
    format: 'handoff.decision/v1',
    item_id: itemId,
    decision: body.decision,
    modified_parameters: body.modified_parameters ?? null,
    comment_sha256: comment,
    nonce,
  };
  return createHash('sha256').update(canonicalJson(decision), 'utf8').digest('base64url');
}

/** A decision's body signed by `signer`'s passkey over `signed` (what the person saw), with a nonce issued to `person`. */
export async function signedDecision(
  stack: Stack,
  person: PasskeyPerson,
  itemId: string,
  body: DecisionBody,
  options: { signed?: DecisionBody; signer?: SoftwareAuthenticator; nonce?: string } = {},
) {
  const nonce = options.nonce ?? ((await person.as('POST', '/v1/inbox/decision-nonces')).body.nonce as string);
  const challenge = challengeOf(itemId, options.signed ?? body, nonce);
  const assertion = (options.signer ?? person.authenticator).assert(
    { challenge, rpId: new URL(stack.baseUrl).hostname },
    stack.baseUrl,
  );
  return {
    ...body,
    signature: {
      nonce,
      credential_id: assertion.id,
      authenticator_data: assertion.response.authenticatorData,
      client_data_json: assertion.response.clientDataJSON,
      signature: assertion.response.signature,
    },
  };
}
