import type { Server } from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createHandoff } from '@handoff/sdk';
import express from 'express';
import { createHandoffMcpServer } from './server';

/** stdio: one agent, whose token is HANDOFF_TOKEN, against the API at HANDOFF_URL. */
export async function serveStdio(env: Record<string, string | undefined>): Promise<void> {
  const baseUrl = env.HANDOFF_URL ?? 'http://127.0.0.1:3000';
  const token = env.HANDOFF_TOKEN;
  if (!token)
    throw new Error(
      'Set HANDOFF_TOKEN to the agent’s token (an agent API key hnd_ak_…, or an access or delegation token)',
    );
  await createHandoffMcpServer(createHandoff({ baseUrl, token })).connect(new StdioServerTransport());
}

/**
 * Streamable HTTP at POST /mcp, stateless: each request is served by a server of its own that calls Handoff with
 * that request's bearer token, so one endpoint serves many agents, each with its own authority.
 */
export function serveHttp(options: { handoffUrl: string; host: string; port: number }): Promise<Server> {
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/mcp', async (req, res) => {
    const token = /^Bearer (\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    if (!token) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer')
        .json({
          jsonrpc: '2.0',
          error: { code: -32001, message: 'Send the agent’s Handoff token as a bearer token' },
          id: null,
        });
      return;
    }
    const server = createHandoffMcpServer(createHandoff({ baseUrl: options.handoffUrl, token }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: there is no session to stream to or to end.
  app.all('/mcp', (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only' }, id: null });
  });
  return new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
}
