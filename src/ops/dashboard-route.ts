import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SyncQueue } from '../../jobs/sync-queue.js';

export const dashboardPath = '/admin/queues';
const cookieName = 'tms_ops_token';

export interface DashboardRouteOptions {
  readonly queue: SyncQueue;
  /** Required on every request: `Authorization: Bearer <token>`, or `?token=<token>` once in a browser (then a cookie). */
  readonly token: string;
}

/**
 * Bull Board at /admin/queues, behind the dashboard token (401 without it): the sync queue.
 */
export async function dashboardRoute(app: FastifyInstance, options: DashboardRouteOptions): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(dashboardPath);
  createBullBoard({ queues: [new BullMQAdapter(options.queue)], serverAdapter });
  app.addHook('onRequest', async (request, reply) => {
    const given = presentedToken(request);
    if (given === undefined || !sameSecret(given, options.token))
      return reply.code(401).send({ error: 'token required' });
    if (queryToken(request) !== undefined) setCookie(reply, options.token);
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: dashboardPath });
}

function presentedToken(request: FastifyRequest): string | undefined {
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const cookie = request.headers.cookie
    ?.split(';')
    .map((part) => part.trim().split('='))
    .find(([name]) => name === cookieName)?.[1];
  return bearer ?? queryToken(request) ?? (cookie === undefined ? undefined : decoded(cookie));
}

/** A cookie value as set by `setCookie`; one that is not valid percent-encoding holds no token (401, not 500). */
function decoded(cookie: string): string | undefined {
  try {
    return decodeURIComponent(cookie);
  } catch {
    return undefined;
  }
}

function queryToken(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' ? token : undefined;
}

// The browser keeps the token for the dashboard's own asset and API requests, which carry no header.
function setCookie(reply: FastifyReply, token: string): void {
  reply.header(
    'set-cookie',
    `${cookieName}=${encodeURIComponent(token)}; Path=${dashboardPath}; HttpOnly; SameSite=Strict`,
  );
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
