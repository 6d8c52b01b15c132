import { Router, type RequestHandler } from 'express';
import type { Method } from './openapi-assembly';

interface Declared {
  method: Method;
  path: string;
  handlers: RequestHandler[];
  /** The path's segments before its first parameter, in lower case (Express matches paths case-insensitively). */
  literal: string[];
}

interface PrefixNode {
  /** The routes a request whose path begins with this node's segments can match, in declared order. */
  router: Router;
  children: Map<string, PrefixNode>;
}

const LITERAL_SEGMENT = /^[\w.~-]+$/;

function literalSegments(expressPath: string): string[] {
  const segments = expressPath.toLowerCase().split('/').filter(Boolean);
  const firstParameter = segments.findIndex((segment) => !LITERAL_SEGMENT.test(segment));
  return firstParameter === -1 ? segments : segments.slice(0, firstParameter);
}

function startsWith(segments: string[], prefix: string[]): boolean {
  return prefix.length <= segments.length && prefix.every((segment, at) => segments[at] === segment);
}

/**
 * Express routes, each request tried only against the routes whose literal path prefix its path begins with:
 * a Router tries every route's pattern in turn, and with 170-odd routes, matched twice per request (metering,
 * then answering), that was a visible share of the API's CPU. The routes a request is tried against keep their
 * declared order and Express still matches each, so which route answers, its params, HEAD and the end of the
 * chain when none matches are as one Router holding them all.
 */
export class PrefixRouter {
  private readonly declared: Declared[] = [];
  private root: PrefixNode | undefined;
  /** Every route in one Router, never run: what lists a mounted router's routes (the OpenAPI check) reads it. */
  private readonly listing = Router();

  /** The middleware to mount; it carries the routes' stack as a mounted Router does. */
  readonly handle: RequestHandler & { stack: unknown[] } = Object.assign(
    ((req, res, next) => {
      this.nodeFor(req.path).router(req, res, next);
    }) as RequestHandler,
    { stack: this.listing.stack },
  );

  add(method: Method, expressPath: string, handlers: RequestHandler[]): void {
    this.declared.push({ method, path: expressPath, handlers, literal: literalSegments(expressPath) });
    this.listing[method](expressPath, ...handlers);
    this.root = undefined;
  }

  /** Builds the prefix tree now, once every route is added, so that the first request does not pay for it. */
  compile(): void {
    this.root = this.tree([]);
  }

  private nodeFor(path: string): PrefixNode {
    // A route added after compile() drops the tree; the next request builds it again.
    this.root ??= this.tree([]);
    let node = this.root;
    for (const segment of path.toLowerCase().split('/').filter(Boolean)) {
      const child = node.children.get(segment);
      if (!child) break;
      node = child;
    }
    return node;
  }

  private tree(prefix: string[]): PrefixNode {
    const router = Router();
    for (const route of this.declared)
      if (startsWith(prefix, route.literal)) router[route.method](route.path, ...route.handlers);
    const next = new Set(
      this.declared
        .filter((route) => route.literal.length > prefix.length && startsWith(route.literal, prefix))
        .map((route) => route.literal[prefix.length] as string),
    );
    return { router, children: new Map([...next].map((segment) => [segment, this.tree([...prefix, segment])])) };
  }
}
