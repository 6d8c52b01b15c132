import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

/** Headless Chromium that reaches http://localhost:<port> on 127.0.0.1, where a test's API listens. */
export function launchPasskeyBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
}

export interface AuthenticatorProfile {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

/** A browser profile with Chromium's virtual platform authenticator: a passkey store that verifies its user. */
export async function withVirtualAuthenticator(
  browser: Browser,
  viewport?: { width: number; height: number },
): Promise<AuthenticatorProfile> {
  const context = await browser.newContext(viewport ? { viewport } : {});
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page, cdp, authenticatorId };
}
