import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { AppDeps } from '../../api/app';
import { ledgerOrigin, tokenIssuer, type Config } from '../../app/config';
import { createAppDeps } from '../../app/deps';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { freePort } from '../../lib/net';
import { firstEnrollment, withBrowserPasskeys } from '../../scripts/dev-browser';
import { buildStackApp } from '../support/app';
import { chromiumExecutable } from '../support/chromium';
import { launchPasskeyBrowser, withVirtualAuthenticator } from '../support/passkey-browser';
import { startStack, type Stack } from '../support/stack';

const executable = chromiumExecutable();
// CI installs Chromium (.ci/run): there a missing browser is a failure, not a skip.
if ('missing' in executable && process.env.CI)
  throw new Error(`The inbox e2e test needs Chromium: ${executable.missing}`);
if ('missing' in executable) console.error(`Skipping the inbox e2e test: ${executable.missing}`);
const describeWithChromium = 'path' in executable ? describe : describe.skip;

jest.setTimeout(180_000);

let stack: Stack;
let server: Server;
let config: Config;
let browser: Browser;
let deps: AppDeps;

beforeAll(async () => {
  if (!('path' in executable)) return;
  stack = await startStack();
  // `npm start`'s defaults: no PUBLIC_BASE_URL, the API on 127.0.0.1, passkeys bound to localhost.
  const { PUBLIC_BASE_URL: stackBase, ...unset } = stack.config;
  config = withBrowserPasskeys({
    ...unset,
    PORT: await freePort(),
    AUTH_ISSUER: tokenIssuer(stack.config),
    LEDGER_ORIGIN: ledgerOrigin({ ...stack.config, PUBLIC_BASE_URL: stackBase }),
  });
  server = await listen(buildStackApp(stack, { config }), { host: '127.0.0.1', port: config.PORT });
  deps = createAppDeps(config, {
    db: stack.database.db,
    temporal: stack.temporal,
    logger: createLogger({ level: 'error', silent: true }),
    listenUrl: undefined,
  });
  browser = await launchPasskeyBrowser(executable.path);
});

afterAll(async () => {
  await browser?.close();
  await deps?.revocations.close();
  await deps?.decisions.close();
  if (server) await closeServer(server);
  await stack?.stop();
});

/** The first enrollment link `npm start` prints for a person, made with this server's settings. */
async function enrollmentLink(person: { user_name: string; display_name: string }): Promise<string> {
  const made = await firstEnrollment(deps, DEFAULT_ORGANIZATION_ID, person);
  if (made.state !== 'link') throw new Error(`${person.user_name} is enrolled already`);
  return made.url;
}

async function enrollFrom(page: Page, link: string): Promise<string> {
  await page.goto(link);
  await page.click('#enroll');
  const status = page.locator('#status[data-state="enrolled"], #status[data-state="error"]');
  await status.waitFor({ timeout: 30_000 });
  expect(await status.getAttribute('data-state')).toBe('enrolled');
  return (await status.getAttribute('data-did'))!;
}

describeWithChromium('the reviewer inbox on npm start’s defaults', () => {
  it('enrolls the seeded reviewer from the printed link, with a passkey bound to localhost', async () => {
    const link = await enrollmentLink({ user_name: 'ada', display_name: 'Ada (clinical reviewer)' });
    expect(link).toMatch(new RegExp(`^http://localhost:${String(config.PORT)}/passkeys#enrollment=`));
    const { context, page, cdp, authenticatorId } = await withVirtualAuthenticator(browser);
    try {
      const did = await enrollFrom(page, link);
      const passport = await stack.database.db('passports').where({ did }).first();
      expect(passport).toMatchObject({ type: 'individual', name: 'Ada (clinical reviewer)', status: 'active' });
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toEqual([expect.objectContaining({ rpId: 'localhost' })]);
      // Enrolled, the next start has no link to print.
      await expect(
        firstEnrollment(deps, DEFAULT_ORGANIZATION_ID, { user_name: 'ada', display_name: 'Ada' }),
      ).resolves.toEqual({ state: 'enrolled', passport_id: passport.passport_id });
    } finally {
      await context.close();
    }
  });
});
