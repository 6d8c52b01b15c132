import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  authorization: string | undefined;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    stream?: boolean;
    temperature?: number;
    max_tokens?: number;
  };
}

export interface ProviderBehaviour {
  /** What the provider does: answers, fails with a status, or waits this long before answering. */
  mode: 'answer' | 'fail' | 'slow';
  text?: string;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  failStatus?: number;
  delayMs?: number;
}

export interface LocalProvider {
  /** The base URL as REASONING_PROVIDERS takes it (…/v1). */
  baseUrl: string;
  requests: ProviderRequest[];
  behaviour: ProviderBehaviour;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as unknown;
}

/**
 * An OpenAI-compatible chat-completions server on a free local port: it answers (as JSON, or as server-sent
 * events when asked to stream, with usage in the last event), fails with a status, or is slow.
 */
export async function startLocalProvider(behaviour: ProviderBehaviour): Promise<LocalProvider> {
  const requests: ProviderRequest[] = [];
  const provider = { behaviour };
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const body = (await readJson(req)) as ProviderRequest['body'];
      requests.push({ authorization: req.headers.authorization, body });
      const current = provider.behaviour;
      if (current.mode === 'fail') {
        res
          .writeHead(current.failStatus ?? 500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'upstream exploded' } }));
        return;
      }
      if (current.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, current.delayMs ?? 5_000));
      if (res.destroyed) return;
      const text = current.text ?? 'The answer is 42.';
      const usage = current.usage === undefined ? { prompt_tokens: 1200, completion_tokens: 300 } : current.usage;
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const pieces = text.match(/.{1,5}/gs) ?? [];
        for (const piece of pieces) {
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        if (usage)
          res.write(
            `data: ${JSON.stringify({ choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
          );
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-local',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
        }),
      );
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get behaviour() {
      return provider.behaviour;
    },
    set behaviour(next: ProviderBehaviour) {
      provider.behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
