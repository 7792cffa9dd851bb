import type { FastifyInstance } from 'fastify';

/** Answers served per route and status, e.g. `{"GET /invoices": {"200": 191}}` (admin routes excluded). */
export type RequestCounts = Record<string, Record<string, number>>;

/** The API answers of one wall-clock second (login excluded: the rate limit does not count it). */
export interface SecondCount {
  /** Unix time in whole seconds. */
  readonly second: number;
  readonly answered: number;
  /** Of those, answered 429. */
  readonly rateLimited: number;
}

/** Seconds kept for `perSecond`: an hour, so a long soak cannot grow the counter without bound. */
const keptSeconds = 3600;

/**
 * Counts the API answers the simulator sent (`GET /_sim/requests`), so a drill can tell how many
 * pages a client fetched, including those of a process that was killed before it could say; and
 * per second, so a benchmark can tell whether clients sharing a rate limit kept to it together.
 */
export interface RequestCounter {
  install(app: FastifyInstance): void;
  counts(): RequestCounts;
  /** The last hour's seconds that had answers, oldest first. */
  perSecond(): SecondCount[];
}

export function createRequestCounter(options: { loginPath: string; now?: () => number }): RequestCounter {
  const now = options.now ?? Date.now;
  const counts: RequestCounts = {};
  const seconds = new Map<number, { answered: number; rateLimited: number }>();
  const countSecond = (status: number) => {
    const second = Math.floor(now() / 1000);
    let count = seconds.get(second);
    if (!count) {
      count = { answered: 0, rateLimited: 0 };
      seconds.set(second, count);
      // Seconds arrive in order: the oldest is the map's first key.
      for (const kept of seconds.keys()) {
        if (kept > second - keptSeconds) break;
        seconds.delete(kept);
      }
    }
    count.answered += 1;
    if (status === 429) count.rateLimited += 1;
  };
  return {
    install(app) {
      app.addHook('onResponse', async (request, reply) => {
        if (request.url.startsWith('/_sim/')) return;
        const route = `${request.method} ${request.routeOptions.url ?? '(no route)'}`;
        const byStatus = counts[route] ?? {};
        byStatus[reply.statusCode] = (byStatus[reply.statusCode] ?? 0) + 1;
        counts[route] = byStatus;
        if (request.routeOptions.url !== options.loginPath) countSecond(reply.statusCode);
      });
    },
    counts: () => structuredClone(counts),
    perSecond: () => [...seconds].map(([second, count]) => ({ second, ...count })),
  };
}
