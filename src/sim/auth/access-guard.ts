import type { FastifyRequest } from 'fastify';
import type { DriverCaller } from '../sim-context.js';
import { SimHttpError } from '../sim-http-error.js';
import type { RateLimiter } from './rate-limiter.js';
import type { TokenClaims, TokenIssuer } from './token-issuer.js';

/** Scopes of the REST services; login tokens carry both. */
export const serviceScopes = { invoice: 'invoice', client: 'client' } as const;
export type ServiceScope = keyof typeof serviceScopes;

/** Checks bearer tokens by the rules of docs/api.md, Authentication and counts every call against the rate limit. */
export interface AccessGuard {
  /** Invoice and client services: an access token (type apitoken, audience external) with the scope. */
  requireService(request: FastifyRequest, scope: ServiceScope): TokenClaims;
  /**
   * Driver API: a driver or apitoken token for audience external or driver, and an operator (the
   * `operatorId` parameter or the token's operator claim). Whether the operator exists is the
   * Driver API's check (404 operator_not_found), as it owns the operators.
   */
  authenticateDriver(request: FastifyRequest, requireOperator: boolean): DriverCaller;
}

const forbidden = (code: string, message: string) => new SimHttpError(403, code, message);

export function createAccessGuard(options: { issuer: TokenIssuer; limiter: RateLimiter }): AccessGuard {
  const authenticate = (request: FastifyRequest): TokenClaims => {
    const header = request.headers.authorization;
    if (header === undefined)
      throw new SimHttpError(401, 'missing_token', 'send Authorization: Bearer <access token>');
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    if (!match)
      throw new SimHttpError(401, 'invalid_token', 'the Authorization header is not "Bearer <token>"');
    const claims = options.issuer.verify(match[1]!);
    // The allowance is the tenant's: every token of it (every worker's) draws from one bucket.
    options.limiter.take('tenant');
    return claims;
  };

  return {
    requireService(request, scope) {
      const claims = authenticate(request);
      if (claims.typ !== 'apitoken')
        throw forbidden('wrong_token_type', 'this service takes an access token, not a driver token');
      if (!claims.aud.includes('external'))
        throw forbidden('wrong_audience', 'the token is not for audience external');
      if (!claims.scopes.includes(serviceScopes[scope]))
        throw forbidden('insufficient_scope', `the token lacks scope ${scope}`);
      return claims;
    },
    authenticateDriver(request, requireOperator) {
      const claims = authenticate(request);
      if (!claims.aud.includes('external') && !claims.aud.includes('driver')) {
        throw forbidden('wrong_audience', 'the token is not for audience external or driver');
      }
      const given = (request.query as Record<string, unknown> | undefined)?.operatorId;
      if (given !== undefined && typeof given !== 'string')
        throw new SimHttpError(400, 'invalid_query', 'operatorId must be given once');
      if (given !== undefined && claims.operator !== undefined && given !== claims.operator) {
        throw forbidden('operator_mismatch', `the token is bound to operator ${claims.operator}`);
      }
      const operatorId = given ?? claims.operator;
      if (operatorId === undefined) {
        if (requireOperator)
          throw new SimHttpError(
            400,
            'missing_operator',
            'operatorId is required unless the token carries an operator claim',
          );
        return { tokenType: claims.typ, operatorId: '' };
      }
      return { tokenType: claims.typ, operatorId };
    },
  };
}
