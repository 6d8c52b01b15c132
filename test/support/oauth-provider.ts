import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';

export interface OAuthProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The endpoints a connector registers (oidc-provider's defaults). */
  endpoints: { authorization_endpoint: string; token_endpoint: string; revocation_endpoint: string };
  /** Refresh grants the provider served and refused, and revocations it took, so far. */
  stats(): Promise<{ refreshed: number; refused: number; revoked: number }>;
  stop(): Promise<void>;
}

/**
 * Starts oidc-provider (a maintained OpenID Connect provider, ESM-only) in a child Node process with one
 * confidential client whose redirect URI is the service's callback, and waits for its issuer URL.
 */
export async function startOAuthProvider(
  redirectUri: string,
  options: { accessTokenTtlSeconds?: number } = {},
): Promise<OAuthProvider> {
  const script = path.join(__dirname, 'oauth-provider-server.mjs');
  const child: ChildProcess = spawn(
    process.execPath,
    [script, redirectUri, String(options.accessTokenTtlSeconds ?? 3600)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the OAuth provider exited (${code ?? 'signal'}): ${errors}`)));
  });
  return {
    issuer,
    clientId: 'handoff',
    clientSecret: 'handoff-client-secret',
    endpoints: {
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      revocation_endpoint: `${issuer}/token/revocation`,
    },
    async stats() {
      const response = await fetch(`${issuer}/test/stats`);
      return (await response.json()) as { refreshed: number; refused: number; revoked: number };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
