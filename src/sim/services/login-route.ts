import type { FastifyInstance } from 'fastify';
import { LoginRequest } from '../../../schemas/envelopes.js';
import type { ApiToken } from '../auth/api-token.js';
import type { TokenIssuer } from '../auth/token-issuer.js';
import { SimHttpError } from '../sim-http-error.js';
import type { SimOptions } from '../sim-options.js';
import { createBodyChecker } from './body-checker.js';
import { sendJson } from './service-deps.js';

const checkLogin = createBodyChecker(LoginRequest);

/**
 * The login operation of docs/api.md, Authentication: the account's API token (as rotated, api-token.ts)
 * buys an access token (type apitoken, audience external, scopes invoice and client) valid for
 * `tokenTtlSeconds`.
 */
export function registerLoginRoute(
  app: FastifyInstance,
  options: SimOptions,
  issuer: TokenIssuer,
  accountToken: ApiToken,
): void {
  app.post(options.loginPath, (request, reply) => {
    const { apiToken } = checkLogin(request.body);
    if (!accountToken.accepts(apiToken))
      throw new SimHttpError(401, 'unknown_api_token', 'the API token is not known');
    const token = issuer.issue(
      { typ: 'apitoken', aud: ['external'], scopes: ['invoice', 'client'] },
      options.tokenTtlSeconds,
      options.variant.tokenFormat,
    );
    return sendJson(reply, 200, JSON.stringify({ data: { items: [token] } }));
  });
}
