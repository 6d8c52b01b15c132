import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startLocalhostApp, type ExtraApp } from '../support/app';
import { chromiumForTest } from '../support/chromium';
import { call } from '../support/http';
import { launchPasskeyBrowser, withVirtualAuthenticator, type AuthenticatorProfile } from '../support/passkey-browser';
import { approve, codeSentTo, guardOwner, type RecoveryView } from '../support/recovery';
import { startStack, type Stack } from '../support/stack';

const { executable, describeWithChromium } = chromiumForTest('recovery passkey e2e test');

jest.setTimeout(120_000);

let stack: Stack;
let app: ExtraApp | undefined;
let baseUrl: string;
let browser: Browser;
const profiles: AuthenticatorProfile[] = [];

beforeAll(async () => {
  if (!('path' in executable)) return;
  // Guardians count one second after accepting, and the time lock lasts two: the real rules, shortened.
  stack = await startStack({ RECOVERY_GUARDIAN_CHANGE_DELAY_SECONDS: '1', RECOVERY_TIME_LOCK_SECONDS: '2' });
  app = await startLocalhostApp(stack);
  baseUrl = app.baseUrl;
  browser = await launchPasskeyBrowser(executable.path);
});

afterAll(async () => {
  for (const profile of profiles) await profile.context.close();
  await browser?.close();
  await app?.close();
  await stack?.stop();
});

/** A device of the person's: a browser profile with its own platform authenticator. */
async function device(): Promise<Page> {
  const profile = await withVirtualAuthenticator(browser);
  profiles.push(profile);
  return profile.page;
}

async function statusAfterClicking(page: Page, button: string) {
  await page.click(button);
  const status = page.locator('#status:not([data-state=""])');
  await status.waitFor({ timeout: 30_000 });
  return { state: await status.getAttribute('data-state'), did: await status.getAttribute('data-did') };
}

async function signInOn(page: Page) {
  await page.goto(`${baseUrl}/passkeys`);
  return statusAfterClicking(page, '#sign-in');
}

/** The owner enrolls their first passkey on their old device: the credential the recovery replaces. */
async function enrolledOwner(desk: string, oldDevice: Page) {
  const enrollment = await call(baseUrl, 'POST', '/v1/webauthn/registration/options', {
    token: desk,
    json: { userId: `owner-${randomUUID()}@acme.example`, displayName: 'Owner' },
  });
  await oldDevice.goto(enrollment.body.enrollment_url as string);
  const answered = oldDevice.waitForResponse((response) => response.url().endsWith('/v1/webauthn/registration'));
  expect(await statusAfterClicking(oldDevice, '#enroll')).toMatchObject({ state: 'enrolled' });
  const body = (await (await answered).json()) as {
    passport: { passport_id: string; did: string };
    session: { session_token: string };
  };
  return { passport_id: body.passport.passport_id, did: body.passport.did, sessionToken: body.session.session_token };
}

describeWithChromium('guardian recovery onto a passkey in a real browser', () => {
  it('registers the new passkey on the service’s page, completes after guardians and the time lock, and signs in with it while the old one is refused', async () => {
    const desk = await stack.token(['platform:admin']);
    const oldDevice = await device();
    const owner = await enrolledOwner(desk, oldDevice);
    const { guardians } = await guardOwner(stack, owner);
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const started = await call(baseUrl, 'POST', `/v1/passports/${owner.passport_id}/recovery/passkey-options`, {
      token: desk,
    });
    expect(started.status).toBe(201);
    const newDevice = await device();
    await newDevice.goto(started.body.registration_url as string);
    expect(await statusAfterClicking(newDevice, '#recover')).toMatchObject({ state: 'registered' });
    const registration = JSON.parse(await newDevice.locator('#registration').inputValue()) as { id: string };

    const contact = `contact-${randomUUID()}@example.test`;
    const opened = await call(baseUrl, 'POST', `/v1/passports/${owner.passport_id}/recovery/requests`, {
      token: desk,
      json: { recoveryContact: contact, reason: 'lost my laptop', newCredential: { type: 'passkey', registration } },
    });
    expect(opened.status).toBe(201);
    const request = opened.body as RecoveryView;
    expect(opened.body.new_credential).toMatchObject({ type: 'passkey', credential_id: registration.id });
    for (const guardian of guardians.slice(0, 2))
      expect((await approve(stack, guardian.person, request)).status).toBe(200);
    const code = await codeSentTo(stack, contact);
    const done = await call(
      baseUrl,
      'POST',
      `/v1/passports/${owner.passport_id}/recovery/requests/${request.id}/execute`,
      {
        token: desk,
        json: { confirmationCode: code },
      },
    );
    expect(done.body).toMatchObject({ status: 'completed', revoked_credentials: [{ type: 'passkey' }] });

    expect(await signInOn(newDevice)).toMatchObject({ state: 'signed-in', did: owner.did });
    expect(await signInOn(oldDevice)).toMatchObject({ state: 'error' });
    const oldSession = await call(baseUrl, 'GET', `/v1/passports/${owner.passport_id}`, { token: owner.sessionToken });
    expect(oldSession.status).toBe(401);
  });
});
