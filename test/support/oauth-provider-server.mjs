// A real OAuth 2.0 / OpenID Connect provider (oidc-provider, ESM-only) for the connector tests, run as a
// child process because jest runs CommonJS. Prints {"issuer": …} once it listens; GET /test/stats answers
// how many refresh grants it served and refused, so a test can see a refresh token spent exactly once.
import http from 'node:http';
import Provider from 'oidc-provider';

const [redirectUri, accessTokenTtl = '3600'] = process.argv.slice(2);
const SCOPES = ['messages:read', 'messages:write', 'files:read'];

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'handoff',
      client_secret: 'handoff-client-secret',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  scopes: ['openid', 'offline_access', ...SCOPES],
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
  // Every code grant gets a refresh token, and every refresh rotates it: a spent one is refused (invalid_grant).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  ttl: {
    AccessToken: Number(accessTokenTtl),
    AuthorizationCode: 60,
    RefreshToken: 86400,
    Grant: 86400,
    Interaction: 600,
    Session: 600,
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`${error.stack}\n`));

const stats = { refreshed: 0, refused: 0, revoked: 0 };
provider.on('grant.success', (ctx) => {
  if (ctx.oidc.params.grant_type === 'refresh_token') stats.refreshed += 1;
});
provider.on('grant.error', (ctx) => {
  if (ctx.oidc.params?.grant_type === 'refresh_token') stats.refused += 1;
});

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url === '/test/stats') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(stats));
    return;
  }
  // oidc-provider emits no event for a revocation it took: count the endpoint's 200 answers.
  if (req.method === 'POST' && req.url === '/token/revocation')
    res.on('finish', () => {
      if (res.statusCode === 200) stats.revoked += 1;
    });
  callback(req, res);
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
