import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { KeyRing } from '../../services/auth/key-ring';
import { authenticateBearer, grants, type Principal, type Scope, type TokenSettings } from '../../services/auth/tokens';
import { Problem } from '../problem';

export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

/**
 * Identifies the caller when a bearer token is present, without rejecting yet: the rate limiter runs next
 * (so even refused calls carry rate-limit headers), then requireScope says 401 or 403.
 */
export function authenticate(deps: { db: Knex; keyRing: KeyRing; settings: TokenSettings }): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('authorization');
    if (!header) {
      next();
      return;
    }
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) {
      res.locals.authError = 'The Authorization header must be "Bearer <token>"';
      next();
      return;
    }
    const result = await authenticateBearer(deps, match[1]);
    if (result.ok) res.locals.principal = result.principal;
    else res.locals.authError = result.reason;
    next();
  };
}

/** Without a scope, only a caller: the handler checks a grant that names the resource. */
export function requireScope(scope: Scope | undefined): RequestHandler {
  return (_req, res, next) => {
    const principal = principalOf(res);
    if (!principal) {
      const reason = (res.locals.authError as string | undefined) ?? 'A bearer token is required';
      throw new Problem('unauthorized', reason, {
        headers: { 'WWW-Authenticate': `Bearer realm="handoff"${res.locals.authError ? ', error="invalid_token"' : ''}` },
      });
    }
    if (scope !== undefined && !grants(principal.scopes, scope)) {
      throw new Problem('insufficient_scope', `This operation needs the scope ${scope}`, {
        headers: { 'WWW-Authenticate': `Bearer realm="handoff", error="insufficient_scope", scope="${scope}"` },
        extensions: { required_scope: scope },
      });
    }
    next();
  };
}
