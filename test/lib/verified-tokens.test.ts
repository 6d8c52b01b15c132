import { generateKeyPair, SignJWT } from 'jose';
import { createVerifiedTokenCache, protectedHeaderOf } from '../../lib/verified-tokens';

async function signedToken(header: { typ: string; kid: string }): Promise<string> {
  const { privateKey } = await generateKeyPair('EdDSA');
  return new SignJWT({ sub: 'someone' })
    .setProtectedHeader({ alg: 'EdDSA', ...header })
    .setExpirationTime('1h')
    .sign(privateKey);
}

describe('a verified token’s protected header', () => {
  it('is decoded from a token the cache does not hold', async () => {
    const token = await signedToken({ typ: 'at+jwt', kid: 'key-1' });
    expect(protectedHeaderOf(createVerifiedTokenCache(), token)).toEqual({ typ: 'at+jwt', kid: 'key-1' });
    expect(protectedHeaderOf(undefined, token)).toEqual({ typ: 'at+jwt', kid: 'key-1' });
  });

  it('is undefined for a token that does not decode', () => {
    expect(protectedHeaderOf(createVerifiedTokenCache(), 'not.a-token')).toBeUndefined();
  });

  it('is the one kept with the token when it was verified, without decoding it again', () => {
    const verified = createVerifiedTokenCache();
    // A string that does not decode: only the kept header can answer for it.
    verified.set('kept-token', { sub: 'someone' }, { typ: 'session+jwt', kid: 'key-2' });
    expect(protectedHeaderOf(verified, 'kept-token')).toEqual({ typ: 'session+jwt', kid: 'key-2' });
    expect(verified.get('kept-token')).toEqual({ sub: 'someone' });
  });

  it('is decoded again for a token kept without its header', async () => {
    const verified = createVerifiedTokenCache();
    const token = await signedToken({ typ: 'session+jwt', kid: 'key-3' });
    verified.set(token, { sub: 'someone' });
    expect(protectedHeaderOf(verified, token)).toEqual({ typ: 'session+jwt', kid: 'key-3' });
  });
});
