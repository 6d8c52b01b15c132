import { createSmsSender, SmsUnavailable, type SmsSettings } from '../../lib/sms/sender';
import { freePort } from '../../lib/net';
import { startRemoteParty, type RemoteParty } from '../support/remote-party';

describe('SMS through a provider speaking Twilio’s Messages API', () => {
  let provider: RemoteParty;
  let settings: SmsSettings;
  beforeAll(async () => {
    provider = await startRemoteParty();
    settings = {
      apiUrl: provider.url,
      accountId: 'AC123',
      authToken: 'tok-secret',
      from: '+15005550006',
      timeoutMs: 2000,
    };
  });
  afterAll(() => provider.close());

  it('posts the message form-encoded to the account’s Messages resource with Basic authentication', async () => {
    provider.behave(() => ({ status: 201, body: { sid: 'SM0001', status: 'queued' } }));
    const receipt = await createSmsSender(settings).send({ to: '+441632960961', body: 'Your code is 123456' });
    expect(receipt).toEqual({ providerMessageId: 'SM0001', status: 'queued' });
    const request = provider.requests.at(-1)!;
    expect(request.path).toBe('/2010-04-01/Accounts/AC123/Messages.json');
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('AC123:tok-secret').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(request.raw))).toEqual({
      To: '+441632960961',
      From: '+15005550006',
      Body: 'Your code is 123456',
    });
  });

  it.each([
    [400, false, { code: 21211, message: 'Invalid To' }, /HTTP 400 code 21211/],
    [401, false, { code: 20003, message: 'Authenticate' }, /HTTP 401 code 20003/],
    [429, true, { code: 20429, message: 'Too Many Requests' }, /HTTP 429/],
    [503, true, {}, /HTTP 503/],
  ])(
    'a %i from the provider is SmsUnavailable (retryable: %s), without the body',
    async (status, retryable, body, says) => {
      provider.behave(() => ({ status, body }));
      const sent = createSmsSender(settings).send({ to: '+441632960961', body: 'code 654321' });
      await expect(sent).rejects.toMatchObject({ name: 'SmsUnavailable', retryable });
      await expect(sent).rejects.toThrow(says);
      await expect(sent).rejects.not.toThrow(/654321/);
    },
  );

  it('refuses a number not in E.164 form before calling the provider', async () => {
    const before = provider.requests.length;
    await expect(createSmsSender(settings).send({ to: '01632 960961', body: 'x' })).rejects.toMatchObject({
      retryable: false,
    });
    expect(provider.requests).toHaveLength(before);
  });

  it('is retryably unavailable when the provider is not there', async () => {
    const sender = createSmsSender({ ...settings, apiUrl: `http://127.0.0.1:${await freePort()}` });
    await expect(sender.send({ to: '+441632960961', body: 'x' })).rejects.toMatchObject({ retryable: true });
  });

  it('refuses to send when no provider is configured', async () => {
    const sender = createSmsSender({ timeoutMs: 1000 });
    expect(sender.configured).toBe(false);
    await expect(sender.send({ to: '+441632960961', body: 'x' })).rejects.toBeInstanceOf(SmsUnavailable);
  });
});
