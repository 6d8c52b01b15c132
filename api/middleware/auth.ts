import type { RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { KeyRing } from '../../services/identity/issuance/key-ring';
import { allowsCapability, CAPABILITIES, type Capability } from '../../domain/identity/capabilities';
import { authenticateBearer, type TypedTokenVerifiers } from '../../services/identity/authentication/bearer';
import { grants, type Principal, type Scope } from '../../services/identity/scopes';
import type { TokenSettings } from '../../services/identity/authentication/actor';
import type { NotifiedCache } from '../../lib/notified-cache';
import { createVerifiedTokenCache } from '../../lib/verified-tokens';
import { Problem } from '../problem';

export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

/**
 * Identifies the caller when a bearer token is present, without rejecting yet: the rate limiter runs next
 * (so even refused calls carry rate-limit headers), then requireAccess says 401 or 403.
 */
export function authenticate(deps: {
  db: Knex;
  keyRing: KeyRing;
  settings: TokenSettings;
  verifiers?: TypedTokenVerifiers;
  credentials?: NotifiedCache;
}): RequestHandler {
  const verified = createVerifiedTokenCache();
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
    const result = await authenticateBearer({ ...deps, verified }, match[1]);
    if (result.ok) res.locals.principal = result.principal;
    else res.locals.authError = result.reason;
    next();
  };
}

/** Whether a caller holds a scope, or the capability it implies (at the caller's risk level). */
export function mayDo(principal: Principal, scope: Scope, capability: Capability | undefined): boolean {
  const riskLevel = principal.actor?.delegation?.risk_level ?? 'high';
  // A session's or delegation token's grants are capabilities, never scopes, even where a name is both (people:enroll).
  const scoped = principal.actor === undefined;
  return (
    (scoped && grants(principal.scopes, scope)) ||
    (capability !== undefined && allowsCapability(principal.scopes, capability, riskLevel))
  );
}

/**
 * An operation's scope or its capability (api/capabilities.ts): a scoped token (access token, PAT, service
 * account) passes with the scope, which implies the capability; a delegation token passes with the
 * capability, at a risk_level no lower than the capability's. An operation with no capability is closed to
 * delegation tokens. Without a scope, only a caller: the handler checks a grant that names the resource.
 */
export function requireAccess(scope: Scope | undefined, capability: Capability | undefined): RequestHandler {
  return (_req, res, next) => {
    const principal = principalOf(res);
    if (!principal) {
      const reason = (res.locals.authError as string | undefined) ?? 'A bearer token is required';
      throw new Problem('unauthorized', reason, {
        headers: {
          'WWW-Authenticate': `Bearer realm="handoff"${res.locals.authError ? ', error="invalid_token"' : ''}`,
        },
      });
    }
    if (scope === undefined) {
      next();
      return;
    }
    if (mayDo(principal, scope, capability)) {
      next();
      return;
    }
    const riskLevel = principal.actor?.delegation?.risk_level ?? 'high';
    const needs = capability ? `the capability ${capability} (or the scope ${scope})` : `the scope ${scope}`;
    const detail =
      capability && principal.scopes.includes(capability)
        ? `This operation is ${CAPABILITIES[capability].risk} risk; the token's risk_level is ${riskLevel}`
        : `This operation needs ${needs}`;
    // RFC 6750's scope attribute names what this kind of token would need: a capability for a delegation token.
    const wanted = principal.kind === 'delegation_token' && capability ? capability : scope;
    throw new Problem('insufficient_scope', detail, {
      headers: { 'WWW-Authenticate': `Bearer realm="handoff", error="insufficient_scope", scope="${wanted}"` },
      extensions: { required_scope: scope, ...(capability ? { required_capability: capability } : {}) },
    });
  };
}
