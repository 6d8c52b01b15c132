import { randomBytes } from 'node:crypto';
import { createSecretBox, parseSecretKey, SecretsUnavailableError } from '../../lib/secret-box';

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const box = createSecretBox({ current: key, previous: [] });

  it('opens what it sealed, and the sealed form shows nothing of the secret', () => {
    const sealed = box.seal('whsec_abc', 'webhook_secret:whsub_1:whsk_1');
    expect(sealed).not.toContain('whsec_abc');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(box.open(sealed, 'webhook_secret:whsub_1:whsk_1')).toBe('whsec_abc');
  });

  it('seals the same secret differently each time (fresh IV)', () => {
    expect(box.seal('same', 'ctx')).not.toBe(box.seal('same', 'ctx'));
  });

  it('refuses a sealed value moved to another record (its context is authenticated)', () => {
    const sealed = box.seal('whsec_abc', 'webhook_secret:whsub_1:whsk_1');
    expect(() => box.open(sealed, 'webhook_secret:whsub_2:whsk_1')).toThrow();
  });

  it('refuses a tampered value', () => {
    const sealed = box.seal('whsec_abc', 'ctx');
    const body = sealed.split('.')[3]!;
    const flipped = `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    expect(() => box.open(sealed.replace(body, flipped), 'ctx')).toThrow();
  });

  it('opens with a previous key after the key was rotated, and seals with the new one', () => {
    const sealedBefore = box.seal('old', 'ctx');
    const rotated = createSecretBox({ current: randomBytes(32), previous: [key] });
    expect(rotated.open(sealedBefore, 'ctx')).toBe('old');
    expect(rotated.seal('new', 'ctx').split('.')[1]).not.toBe(sealedBefore.split('.')[1]);
  });

  it('says plainly when no key is configured', () => {
    const none = createSecretBox({ current: undefined, previous: [] });
    expect(none.canSeal).toBe(false);
    expect(() => none.seal('x', 'ctx')).toThrow(SecretsUnavailableError);
    expect(() => none.open(box.seal('x', 'ctx'), 'ctx')).toThrow(SecretsUnavailableError);
  });

  it('takes a configured key only if it is 32 bytes of base64', () => {
    expect(parseSecretKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseSecretKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
