import { createSimAdminClient, type SimAdminClient, type SimChange } from '../src/sim/sim-admin-client.js';
import { startServerProcess } from './server-process.js';

/** The simulator the benchmark runs against, in its own process (it never shares an event loop). */
export interface SimProcess {
  readonly url: string;
  /** API requests served so far. */
  requests(): Promise<number>;
  /** The simulator's admin client (request counts per route and per second, truth, faults). */
  readonly admin: SimAdminClient;
  /** CPU seconds the simulator has used so far: its share of a run's wall time shows it is no bottleneck. */
  cpuSeconds(): number;
  /** The API requests served since the last call, `METHOD URL` a line (started with `record`). */
  recordedRequests(): Promise<string>;
  /** Applies `count` random changes to invoices only, in batches the admin route accepts. */
  changeInvoices(count: number, seed: number): Promise<SimChange[]>;
  stop(): Promise<void>;
}

/** How the benchmark's simulator is started (bench/sim-server.ts's flags). */
export interface SimProcessOptions {
  readonly invoices: number;
  /** @default 100 */
  readonly clients?: number;
  /** @default 1 */
  readonly operators?: number;
  /** Added to every answer. @default 0 */
  readonly latencyMs?: number;
  /** The tenant's requests per second before 429; 0 = none. @default 0 */
  readonly rateLimit?: number;
  /** A fault profile (its latency replaces `latencyMs`). @default none */
  readonly faults?: string;
  /** @default 3600 */
  readonly tokenTtlSeconds?: number;
  /** Days of rides per operator (tms-sim's `rideDays`). @default 7 */
  readonly rideDays?: number;
  /** Record the requests served, for `recordedRequests`. @default false */
  readonly record?: boolean;
}

export async function startSimProcess(options: SimProcessOptions): Promise<SimProcess> {
  const flags = {
    invoices: options.invoices,
    clients: options.clients ?? 100,
    operators: options.operators ?? 1,
    'latency-ms': options.latencyMs ?? 0,
    'rate-limit': options.rateLimit ?? 0,
    'token-ttl': options.tokenTtlSeconds ?? 3600,
    'ride-days': options.rideDays ?? 7,
    ...(options.faults ? { faults: options.faults } : {}),
  };
  const server = await startServerProcess('bench/sim-server.ts', [
    ...Object.entries(flags).flatMap(([name, value]) => [`--${name}`, String(value)]),
    ...(options.record ? ['--record'] : []),
  ]);
  const admin = createSimAdminClient({ url: server.url });
  return {
    url: server.url,
    admin,
    requests: async () => {
      const counts = await admin.requests();
      let served = 0;
      for (const byStatus of Object.values(counts)) for (const n of Object.values(byStatus)) served += n;
      return served;
    },
    cpuSeconds: server.cpuSeconds,
    recordedRequests: async () => (await fetch(`${server.url}/_bench/requests`)).text(),
    async changeInvoices(count, seed) {
      const changes: SimChange[] = [];
      for (let done = 0, batch = 0; done < count; batch++) {
        const size = Math.min(50_000, count - done);
        changes.push(...(await admin.applyChanges(size, seed + batch, { streams: ['invoices'] })));
        done += size;
      }
      return changes;
    },
    stop: server.stop,
  };
}
