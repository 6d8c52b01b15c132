#!/usr/bin/env -S node --import tsx
/**
 * handoff-mcp            stdio (HANDOFF_URL, HANDOFF_TOKEN)
 * handoff-mcp --http     streamable HTTP at http://HOST:PORT/mcp (MCP_HOST 127.0.0.1, MCP_PORT 3100); each request's bearer is the agent's token
 */
import { serveHttp, serveStdio } from './transports';

async function main(args: string[], env: Record<string, string | undefined>): Promise<void> {
  if (!args.includes('--http')) {
    await serveStdio(env);
    return;
  }
  const host = env.MCP_HOST ?? '127.0.0.1';
  const port = Number(env.MCP_PORT ?? 3100);
  const server = await serveHttp({ handoffUrl: env.HANDOFF_URL ?? 'http://127.0.0.1:3000', host, port });
  const { port: bound } = server.address() as { port: number };
  // stdout is the protocol's in stdio mode only; here it is free for the address.
  process.stdout.write(`handoff-mcp listening on http://${host}:${bound}/mcp\n`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2), process.env).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
