import type { Browser, Page } from 'playwright-core';
import { startLocalhostApp, type ExtraApp } from '../support/app';
import { chromiumForTest } from '../support/chromium';
import { call } from '../support/http';
import { launchPasskeyBrowser, withVirtualAuthenticator } from '../support/passkey-browser';
import { startStack, type Stack } from '../support/stack';

const { executable, describeWithChromium } = chromiumForTest('passkey e2e test');

jest.setTimeout(120_000);

let stack: Stack;
let app: ExtraApp | undefined;
let baseUrl: string;
let browser: Browser;

beforeAll(async () => {
  if (!('path' in executable)) return;
  stack = await startStack();
  app = await startLocalhostApp(stack);
  baseUrl = app.baseUrl;
  browser = await launchPasskeyBrowser(executable.path);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await stack?.stop();
});

async function statusAfterClicking(page: Page, button: string) {
  await page.click(button);
  const status = page.locator('#status:not([data-state=""])');
  await status.waitFor({ timeout: 30_000 });
  return {
    state: await status.getAttribute('data-state'),
    text: await status.textContent(),
    did: await status.getAttribute('data-did'),
  };
}

describeWithChromium('passkeys in a real browser', () => {
  it('enrolls a person with a passkey made by Chromium’s platform authenticator, then signs in with it', async () => {
    const admin = await stack.token(['platform:admin']);
    const enrollment = await call(baseUrl, 'POST', '/v1/webauthn/registration/options', {
      token: admin,
      json: { userId: 'grace@acme.example', displayName: 'Grace Hopper' },
    });
    expect(enrollment.status).toBe(201);
    expect(enrollment.body.options.rp.id).toBe('localhost');
    const { context, page, cdp, authenticatorId } = await withVirtualAuthenticator(browser);
    try {
      await page.goto(enrollment.body.enrollment_url as string);
      const enrolled = await statusAfterClicking(page, '#enroll');
      expect(enrolled).toMatchObject({
        state: 'enrolled',
        did: expect.stringMatching(/^did:web:localhost%3A\d+:passports:pp_/),
      });
      const passport = await stack.database.db('passports').where({ passport_id: enrollment.body.passport_id }).first();
      expect(passport).toMatchObject({ did: enrolled.did, type: 'individual', name: 'Grace Hopper', status: 'active' });

      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });
      const credentialId = Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url');
      expect(
        await stack.database.db('webauthn_credentials').where({ credential_id: credentialId }).first(),
      ).toMatchObject({ passport_id: passport.passport_id, status: 'active' });

      await page.goto(`${baseUrl}/passkeys`);
      const answered = page.waitForResponse((response) => response.url().endsWith('/v1/webauthn/authentication'));
      const signedIn = await statusAfterClicking(page, '#sign-in');
      expect(signedIn).toMatchObject({ state: 'signed-in', did: enrolled.did });
      const session = (await (await answered).json()) as { session_token: string; credential: { id: string } };
      expect(session.credential.id).toBe(credentialId);

      // The session the browser got works where only the person's own session does.
      const own = await call(baseUrl, 'POST', `/v1/passports/${passport.passport_id}/webauthn/credentials/options`, {
        token: session.session_token,
        json: {},
      });
      expect(own.status).toBe(201);
    } finally {
      await context.close();
    }
  });
});
