import { loadConfig, webauthnRelyingParty } from '../../app/config';
import { browserBaseUrl, withBrowserPasskeys } from '../../scripts/dev-browser';

/* `npm start`'s passkey defaults: a browser refuses an IP address as the relying party, so loopback means localhost. */

it('binds passkeys to localhost on the default loopback host, and the browser opens localhost', () => {
  const config = withBrowserPasskeys(loadConfig({ PORT: '3123' }));
  expect(webauthnRelyingParty(config)).toEqual({ rpId: 'localhost', origins: ['http://localhost:3123'] });
  expect(browserBaseUrl(config)).toBe('http://localhost:3123');
  // Tokens and ledger records keep the base URL they were made with.
  expect(config.PUBLIC_BASE_URL).toBeUndefined();
});

it('does the same on every loopback or wildcard address', () => {
  for (const HOST of ['::1', 'localhost', '0.0.0.0'])
    expect(withBrowserPasskeys(loadConfig({ HOST }))).toMatchObject({ WEBAUTHN_RP_ID: 'localhost' });
});

it('leaves a configured relying party, origin or base URL alone', () => {
  const configured = [
    { PUBLIC_BASE_URL: 'https://handoff.example' },
    { WEBAUTHN_RP_ID: 'example.test' },
    { WEBAUTHN_ORIGINS: 'https://app.example.test' },
    { HOST: '10.0.0.5' },
  ];
  for (const env of configured) {
    const config = loadConfig(env);
    expect(withBrowserPasskeys(config)).toBe(config);
  }
  expect(browserBaseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://handoff.example' }))).toBe('https://handoff.example');
});
