/**
 * The peers the hot paths are compared with: LangGraph.js interrupt and resume with its Postgres checkpointer, on
 * the same Postgres, once in the bench's own process (the graph alone) and once as a user would deploy it, behind
 * a node:http server process that checks an EdDSA JWT on every request (./server.ts), driven over HTTP by the
 * bench's process, the load generator.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Send } from '../load';
import { freePort, spawnService, type Service } from '../processes';
import { onTearDown, waitUntil } from '../stack';
import { PEER_AUDIENCE, PEER_ISSUER } from './claims';

export interface Peer {
  open: Send;
  answer: Send;
}

/** The graph in this process: what LangGraph and its checkpointer cost without a server around them. */
export async function inProcessPeer(databaseUrl: string): Promise<Peer> {
  const checkpointer = PostgresSaver.fromConnString(databaseUrl, { schema: 'langgraph_bench' });
  await checkpointer.setup();
  onTearDown(() => checkpointer.end());
  const State = Annotation.Root({ action: Annotation<string>(), decision: Annotation<string>() });
  const graph = new StateGraph(State)
    .addNode('approve', (state) => ({ decision: interrupt<{ action: string }, string>({ action: state.action }) }))
    .addEdge(START, 'approve')
    .addEdge('approve', END)
    .compile({ checkpointer });
  const prefix = `lg-${randomBytes(4).toString('hex')}`;
  return {
    open: async (index) => {
      const result = await graph.invoke(
        { action: `bench approval ${index}` },
        { configurable: { thread_id: `${prefix}-${index}` } },
      );
      return '__interrupt__' in result ? { ok: true } : { ok: false, error: 'no interrupt' };
    },
    answer: async (index) => {
      const result = await graph.invoke(new Command({ resume: 'approved' }), {
        configurable: { thread_id: `${prefix}-${index}` },
      });
      return result.decision === 'approved' ? { ok: true } : { ok: false, error: `resumed to ${result.decision}` };
    },
  };
}

/** The application name of the peer server's Postgres connections, so that their backends' CPU is counted. */
export const PEER_APPLICATION_NAME = 'bench-langgraph-peer';

/** The server process, started on a free port with a fresh Ed25519 key, and a client holding a token it signed. */
export async function httpPeer(databaseUrl: string): Promise<Peer & { service: Service }> {
  const peerDatabaseUrl = new URL(databaseUrl);
  peerDatabaseUrl.searchParams.set('application_name', PEER_APPLICATION_NAME);
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const port = await freePort();
  const service = spawnService('langgraph-peer', path.join(__dirname, 'server.ts'), {
    ...process.env,
    LANGGRAPH_PEER_DATABASE_URL: peerDatabaseUrl.toString(),
    LANGGRAPH_PEER_PUBLIC_JWK: JSON.stringify(await exportJWK(publicKey)),
    LANGGRAPH_PEER_PORT: String(port),
  });
  onTearDown(() => service.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntil('The LangGraph peer', async () => (await fetch(`${baseUrl}/threads/x/interrupt`)).status === 401);
  const token = await new SignJWT({ scope: 'approvals' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
    .setIssuer(PEER_ISSUER)
    .setAudience(PEER_AUDIENCE)
    .setSubject('bench')
    .setExpirationTime('2h')
    .sign(privateKey);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const prefix = `lgh-${randomBytes(4).toString('hex')}`;
  const post = async (url: string, body: unknown, expected: number) => {
    const response = await fetch(`${baseUrl}${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    return response.status === expected
      ? { ok: true as const, body: JSON.parse(text) as Record<string, unknown> }
      : { ok: false as const, error: `${url}: HTTP ${response.status}: ${text.slice(0, 300)}` };
  };
  return {
    service,
    open: async (index) => {
      const reply = await post(`/threads/${prefix}-${index}/interrupt`, { action: `bench approval ${index}` }, 201);
      if (!reply.ok) return reply;
      return reply.body.interrupted === true ? { ok: true } : { ok: false, error: 'no interrupt' };
    },
    answer: async (index) => {
      const reply = await post(`/threads/${prefix}-${index}/resume`, { decision: 'approved' }, 200);
      if (!reply.ok) return reply;
      return reply.body.decision === 'approved'
        ? { ok: true }
        : { ok: false, error: `resumed to ${String(reply.body.decision)}` };
    },
  };
}
