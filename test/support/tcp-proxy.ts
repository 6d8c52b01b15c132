import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (PostgreSQL), to play its outages in a test: `refuse` drops every
 * connection and turns new ones away, as a stopped server does; `freeze` keeps connections open but passes
 * nothing, as a server that stopped answering does; `restore` brings it back.
 */
export interface TcpProxy {
  port: number;
  /** The URL with its host and port replaced by the proxy's. */
  via(url: string): string;
  refuse(): void;
  freeze(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: 'open' | 'refuse' | 'freeze' = 'open';
  const pairs = new Set<[Socket, Socket]>();
  const held = new Set<Socket>();

  const pipe = (client: Socket) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  };

  const server: Server = createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'freeze') {
      held.add(client);
      client.pause();
      client.on('error', () => held.delete(client));
      return;
    }
    pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    refuse() {
      mode = 'refuse';
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    freeze() {
      mode = 'freeze';
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      mode = 'open';
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
      for (const client of held) {
        held.delete(client);
        client.resume();
        pipe(client);
      }
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const client of held) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
