import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { publicBaseUrl, tokenIssuer } from '../../app/config';
import { passportDidWeb } from '../../domain/identity/did';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { createKeyRing } from '../../services/identity/issuance/key-ring';
import { issueSessionToken, type Session } from '../../services/identity/issuance/session-tokens';
import type { Stack } from './stack';

export interface SignedInPerson {
  passport_id: string;
  did: string;
  /** The device key's kid (its RFC 7638 thumbprint) and private key, for proofs the test signs itself. */
  kid: string;
  privateKey: KeyLike;
  sessionToken: string;
  session: Session;
}

/**
 * A person as the device ceremony leaves one, written straight into the stack's database: an individual
 * Passport, one active device key held by the test, and a session token signed in with that key. For tests
 * of what comes after sign-in; the ceremonies themselves have tests of their own.
 */
export async function signedInPerson(
  stack: Stack,
  options: { organization_id?: string; name?: string; ttlSeconds?: number; did?: string } = {},
): Promise<SignedInPerson> {
  const organization_id = options.organization_id ?? DEFAULT_ORGANIZATION_ID;
  const passport_id = `pp_${randomUUID()}`;
  const did = options.did ?? passportDidWeb(publicBaseUrl(stack.config), passport_id);
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const now = new Date();
  const { db } = stack.database;
  await db('passports').insert({
    passport_id,
    did,
    type: 'individual',
    name: options.name ?? 'Test person',
    organization_id,
    metadata: JSON.stringify({}),
    capabilities: [],
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  await db('passport_keys').insert({
    kid,
    passport_id,
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }),
    sealed_private_key: null,
    source: 'device',
    device_id: 'test-device',
    status: 'active',
    created_at: now,
  });
  const { token, session } = await issueSessionToken(
    createKeyRing(db),
    { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE },
    {
      passport_id,
      did,
      organization_id,
      credential: { type: 'device_key', id: kid },
      ttlSeconds: options.ttlSeconds ?? 900,
    },
  );
  return { passport_id, did, kid, privateKey, sessionToken: token, session };
}

export interface DelegatedAgent {
  agent: { passport_id: string; did: string };
  /** The agent's delegation token, holding exactly the capabilities asked for. */
  token: string;
  token_id: string;
}

/**
 * An agent Passport of the person's organization, and a delegation token the person gives it: exchanged from
 * the person's session (with delegation:write beside the capabilities), then narrowed to `capabilities`.
 */
export async function delegateToNewAgent(
  stack: Stack,
  person: SignedInPerson,
  capabilities: string[],
): Promise<DelegatedAgent> {
  const post = async (path: string, body: unknown, token?: string) => {
    const reply = await fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await reply.json()) as { token?: string; token_id?: string };
    if (reply.status !== 201 || !json.token || !json.token_id) throw new Error(`${path} answered ${reply.status}`);
    return { token: json.token, token_id: json.token_id };
  };
  const own = await post('/v1/delegation-tokens/exchange', {
    subject_token: person.sessionToken,
    capabilities: [...capabilities, 'delegation:write'],
    duration_seconds: 3600,
  });
  const agent = { passport_id: `pp_agent_${randomUUID()}`, did: `did:web:agents.example:${randomUUID()}` };
  const now = new Date();
  await stack.database.db('passports').insert({
    ...agent,
    type: 'agent',
    name: 'Assistant',
    organization_id: person.session.organization_id,
    metadata: JSON.stringify({}),
    capabilities: [],
    status: 'active',
    created_at: now,
    updated_at: now,
  });
  const delegated = await post(
    '/v1/delegation-tokens',
    { agentId: agent.passport_id, capabilities, duration_seconds: 600 },
    own.token,
  );
  return { agent, ...delegated };
}
