import type { FastifyInstance } from 'fastify';

/** Answers served per route and status, e.g. `{"GET /invoices": {"200": 191}}` (admin routes excluded). */
export type RequestCounts = Record<string, Record<string, number>>;

/**
 * Counts the API answers the simulator sent (`GET /_sim/requests`), so a drill can tell how many
 * pages a client fetched, including those of a process that was killed before it could say.
 */
export interface RequestCounter {
  install(app: FastifyInstance): void;
  counts(): RequestCounts;
}

export function createRequestCounter(): RequestCounter {
  const counts: RequestCounts = {};
  return {
    install(app) {
      app.addHook('onResponse', async (request, reply) => {
        if (request.url.startsWith('/_sim/')) return;
        const route = `${request.method} ${request.routeOptions.url ?? '(no route)'}`;
        const byStatus = counts[route] ?? {};
        byStatus[reply.statusCode] = (byStatus[reply.statusCode] ?? 0) + 1;
        counts[route] = byStatus;
      });
    },
    counts: () => structuredClone(counts),
  };
}
