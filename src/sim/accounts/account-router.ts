import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ApiToken } from '../auth/api-token.js';
import type { SimOptions } from '../sim-options.js';
import { accountHeader } from './account-options.js';

/** One account of the simulator: its own app (createSimServer) and the API token it accepts now. */
export interface SimAccount {
  readonly app: FastifyInstance;
  readonly apiToken: ApiToken;
}

/** The apps of every account, and which account each access token belongs to. */
export interface AccountRouter {
  /** Hands a raw request to its account's app. */
  route(request: IncomingMessage, response: ServerResponse): void;
}

/**
 * Picks the account of each request: an API request by its bearer token (the account whose login
 * handed it out; unknown tokens go to the first account, which answers 401), the login by the API
 * token in its body, an admin request by `x-sim-account`. API requests go to the app as they came
 * (faults, resets and hostile answers included); the login and admin requests are read whole and
 * replayed, to learn the tokens they hand out.
 */
export function createAccountRouter(options: SimOptions, accounts: readonly SimAccount[]): AccountRouter {
  const apps = accounts.map((account) => account.app);
  const tokens = new Map<string, FastifyInstance>();
  const first = apps[0]!;
  const byHeader = (request: IncomingMessage) => {
    const index = Number(request.headers[accountHeader] ?? 1);
    return Number.isSafeInteger(index) && index >= 1 && index <= apps.length ? apps[index - 1]! : undefined;
  };
  const remember = (app: FastifyInstance, body: string) => {
    for (const match of body.matchAll(/"access":"([^"]+)"/g)) tokens.set(match[1]!, app);
  };
  const replay = async (
    request: IncomingMessage,
    response: ServerResponse,
    pick: (body: string) => FastifyInstance | undefined,
  ) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks);
    const app = pick(payload.toString('utf8'));
    if (!app) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            status: 404,
            code: 'unknown_account',
            message: `no such account (${accountHeader}: 1..${apps.length})`,
          },
        }),
      );
      return;
    }
    const answer = await app.inject({
      method: request.method as 'GET',
      url: request.url ?? '/',
      headers: request.headers,
      payload,
    });
    remember(app, answer.body);
    response.writeHead(answer.statusCode, answer.headers as Record<string, string>);
    response.end(answer.rawPayload);
  };
  const byApiToken = (body: string) => {
    try {
      const apiToken = (JSON.parse(body) as { apiToken?: unknown }).apiToken;
      if (typeof apiToken !== 'string') return first;
      return accounts.find((account) => account.apiToken.accepts(apiToken))?.app ?? first;
    } catch {
      return first;
    }
  };
  return {
    route(request, response) {
      const url = request.url ?? '/';
      if (url.startsWith('/_sim/')) {
        void replay(request, response, () => byHeader(request));
      } else if (request.method === 'POST' && url.split('?')[0] === options.loginPath) {
        void replay(request, response, byApiToken);
      } else {
        const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
        (bearer ? (tokens.get(bearer) ?? first) : first).routing(request, response);
      }
    },
  };
}
