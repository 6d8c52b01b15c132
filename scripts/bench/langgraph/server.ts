/**
 * The peer as a user would deploy it: a LangGraph.js graph behind a plain node:http server, in a process of its
 * own. Every request carries an EdDSA JWT that is verified (algorithm, issuer, audience, expiry) before the graph
 * runs; the graph's one node asks a human (interrupt) and acts on the answer, checkpointed by the Postgres
 * checkpointer. POST /threads/{id}/interrupt runs it to its interrupt (201); POST /threads/{id}/resume with
 * {"decision"} resumes it (200). Configured by LANGGRAPH_PEER_* (see main).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Annotation, Command, END, interrupt, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { importJWK, jwtVerify, type JWK } from 'jose';
import { PEER_AUDIENCE, PEER_ISSUER } from './claims';

function approvalGraph(checkpointer: PostgresSaver) {
  const State = Annotation.Root({ action: Annotation<string>(), decision: Annotation<string>() });
  return new StateGraph(State)
    .addNode('approve', (state) => ({ decision: interrupt<{ action: string }, string>({ action: state.action }) }))
    .addEdge(START, 'approve')
    .addEdge('approve', END)
    .compile({ checkpointer });
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function main(): Promise<void> {
  const databaseUrl = process.env.LANGGRAPH_PEER_DATABASE_URL!;
  const publicKey = await importJWK(JSON.parse(process.env.LANGGRAPH_PEER_PUBLIC_JWK!) as JWK, 'EdDSA');
  const checkpointer = PostgresSaver.fromConnString(databaseUrl, { schema: 'langgraph_bench_http' });
  await checkpointer.setup();
  const graph = approvalGraph(checkpointer);

  /** The answer's status and body: 401 without a valid token, 404 off the two routes. */
  const answer = async (request: IncomingMessage): Promise<[number, unknown]> => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const verified = token
      ? await jwtVerify(token, publicKey, {
          algorithms: ['EdDSA'],
          issuer: PEER_ISSUER,
          audience: PEER_AUDIENCE,
        }).catch(() => undefined)
      : undefined;
    if (!verified) return [401, { error: 'invalid_token' }];
    const route = /^\/threads\/([\w-]+)\/(interrupt|resume)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !route) return [404, { error: 'not_found' }];
    const [, threadId, step] = route;
    const body = await bodyOf(request);
    const config = { configurable: { thread_id: threadId! } };
    if (step === 'interrupt') {
      const result = await graph.invoke({ action: String(body.action) }, config);
      return [201, { thread_id: threadId, interrupted: '__interrupt__' in result }];
    }
    const result = await graph.invoke(new Command({ resume: String(body.decision) }), config);
    return [200, { thread_id: threadId, decision: result.decision }];
  };
  const server = createServer((request, response) => {
    answer(request)
      .catch((error: unknown): [number, unknown] => [500, { error: String(error) }])
      .then(([status, body]) => reply(response, status, body))
      .catch(() => undefined);
  });
  server.listen(Number(process.env.LANGGRAPH_PEER_PORT), '127.0.0.1');
  const stop = () => server.close(() => void checkpointer.end().then(() => process.exit(0)));
  process.on('SIGTERM', stop).on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
