import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { Router, type RequestHandler } from 'express';
import { PrefixRouter } from '../../api/prefix-router';
import type { Method } from '../../api/openapi-assembly';
import { call } from '../support/http';

/** Routes whose order, parameters and fall-through decide which one answers, declared in this order. */
const ROUTES: Array<[Method, string]> = [
  ['get', '/v1/:scope/items'],
  ['get', '/v1/orch/items'],
  ['post', '/v1/orch/routing'],
  ['get', '/v1/orch/routing/:id'],
  ['get', '/v1/orch/routing/summary'],
  ['post', '/v1/orch/routing/:id/cancel'],
  ['get', '/v1/:a/:b/:c'],
  ['get', '/passports/:id/did.json'],
  ['get', '/healthz'],
];

const REQUESTS: Array<[string, string]> = [
  ['GET', '/v1/orch/items'],
  ['GET', '/v1/other/items'],
  ['POST', '/v1/orch/routing'],
  ['POST', '/V1/Orch/Routing/'],
  ['GET', '/v1/orch/routing'],
  ['GET', '/v1/orch/routing/r1'],
  ['HEAD', '/v1/orch/routing/r1'],
  ['GET', '/v1/orch/routing/summary'],
  ['GET', '/v1/orch/routing/pass'],
  ['GET', '/v1/orch/routing/r%2F1'],
  ['POST', '/v1/orch/routing/r1/cancel'],
  ['POST', '/v1/orch/routing/r1/cancel/'],
  ['GET', '/v1//orch/routing'],
  ['GET', '/v1/orch//routing'],
  ['GET', '/v1/x/y/z'],
  ['GET', '/v1/x/y/z/w'],
  ['GET', '/passports/p1/did.json'],
  ['GET', '/passports/p1/didxjson'],
  ['GET', '/healthz?probe=1'],
  ['GET', '/HEALTHZ'],
  ['DELETE', '/healthz'],
  ['GET', '/'],
  ['GET', '/nowhere'],
];

/** Each route answers with its name and params, except that /v1/orch/routing/pass goes on to the next route. */
function answer(method: Method, path: string): RequestHandler {
  return (req, res, next) => {
    if (req.params.id === 'pass') {
      next();
      return;
    }
    res.set('x-route', `${method} ${path}`).json({ route: `${method} ${path}`, params: req.params });
  };
}

async function serve(mount: (app: express.Express) => void): Promise<{ baseUrl: string; server: Server }> {
  const app = express();
  mount(app);
  app.use((_req, res) => {
    res.status(404).set('x-route', 'none').json({ route: 'none' });
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('PrefixRouter', () => {
  let servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

  it('answers every request with the route one Router holding them all would', async () => {
    const plain = await serve((app) => {
      const router = Router();
      for (const [method, path] of ROUTES) router[method](path, answer(method, path));
      app.use(router);
    });
    const prefixed = await serve((app) => {
      const router = new PrefixRouter();
      for (const [method, path] of ROUTES) router.add(method, path, [answer(method, path)]);
      app.use(router.handle);
    });
    servers = [plain.server, prefixed.server];
    const answers = async (baseUrl: string) =>
      Promise.all(
        REQUESTS.map(async ([method, path]) => {
          const reply = await call(baseUrl, method, path);
          return {
            request: `${method} ${path}`,
            status: reply.status,
            route: reply.headers.get('x-route'),
            ...reply.body,
          };
        }),
      );
    const expected = await answers(plain.baseUrl);
    // The cases reach the routes they are about: shadowing, fall-through, case, trailing slash, HEAD, nothing.
    expect(new Set(expected.map((reply) => reply.route)).size).toBeGreaterThanOrEqual(8);
    expect(await answers(prefixed.baseUrl)).toEqual(expected);
  });

  it('builds its tree when compiled, so that the first request does not; a route added after is still answered', async () => {
    const router = new PrefixRouter();
    for (const [method, path] of ROUTES) router.add(method, path, [answer(method, path)]);
    const trees = jest.spyOn(PrefixRouter.prototype as unknown as { tree: (prefix: string[]) => unknown }, 'tree');
    router.compile();
    expect(trees).toHaveBeenCalledWith([]);
    trees.mockClear();
    const { baseUrl, server } = await serve((app) => app.use(router.handle));
    servers.push(server);
    expect((await call(baseUrl, 'GET', '/v1/orch/routing/r1')).headers.get('x-route')).toBe('get /v1/orch/routing/:id');
    expect(trees).not.toHaveBeenCalled();
    router.add('get', '/late', [answer('get', '/late')]);
    expect((await call(baseUrl, 'GET', '/late')).headers.get('x-route')).toBe('get /late');
    trees.mockRestore();
  });
});
