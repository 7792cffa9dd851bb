import Fastify from 'fastify';
import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { notReadyReasons, type Readiness, within } from '../../jobs/readiness.js';
import type { SyncQueue } from '../../jobs/sync-queue.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';
import { dashboardRoute } from './dashboard-route.js';
import type { MetricsText } from './fleet-ops.js';
import { webhookRoute } from './webhook-route.js';

export interface OpsServerOptions {
  readonly settings: Settings;
  readonly queue: SyncQueue;
  readonly redis: Pick<Redis, 'ping'>;
  readonly store: Pick<Store, 'ping'>;
  /** What `/metrics` answers (sync-metrics.ts; a worker of many connections: fleet-ops.ts). */
  readonly metrics: { readonly registry: MetricsText };
  readonly logger: Logger;
  /** Longest wait of one health check. @default 2000 */
  readonly healthTimeoutMs?: number;
  /** Whether the worker can do its job, for `/readyz` (worker-readiness.ts). @default always ready */
  readonly readiness?: () => Promise<Readiness>;
}

export interface OpsServer {
  /** `http://host:port` it listens on (the real port when OPS_PORT is 0). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The worker's ops HTTP server on OPS_HOST:OPS_PORT (127.0.0.1 by default): `/healthz`
 * (liveness), `/readyz` (readiness), `/metrics`, Bull Board at `/admin/queues` when OPS_DASHBOARD_TOKEN is set, and
 * `POST /webhooks/tms` when TMS_WEBHOOK_SECRET is set.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { settings, queue, metrics } = options;
  // Requests are logged at info by fastify; the ops server only reports its problems.
  const app = Fastify({ loggerInstance: options.logger.child({ component: 'ops' }, { level: 'warn' }) });
  app.get('/healthz', async (_request, reply) => {
    const checks = await healthChecks(options);
    const healthy = Object.values(checks).every((check) => check === 'ok');
    return reply.code(healthy ? 200 : 503).send({ status: healthy ? 'ok' : 'unavailable', checks });
  });
  // Readiness, not liveness: red while the worker cannot sync (a refused token, an open breaker,
  // the store or Redis away, every partition's latest run failed), the reasons in the body.
  app.get('/readyz', async (_request, reply) => {
    const readiness = options.readiness ? await options.readiness() : undefined;
    if (!readiness || readiness.ready)
      return reply.code(200).send({ status: 'ready', checks: readiness?.checks ?? {} });
    return reply
      .code(503)
      .send({ status: 'not ready', reasons: notReadyReasons(readiness), checks: readiness.checks });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  const { dashboardToken, webhookSecret } = settings.worker;
  if (dashboardToken) await app.register(dashboardRoute, { queue, token: dashboardToken });
  if (webhookSecret) await app.register(webhookRoute, { settings, queue, secret: webhookSecret });
  await app.listen({ host: settings.opsHost, port: settings.opsPort }).catch(async (error: unknown) => {
    await app.close();
    throw listenError(error, settings);
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.opsPort;
  const host = settings.opsHost.includes(':') ? `[${settings.opsHost}]` : settings.opsHost;
  if (!isLoopback(settings.opsHost)) {
    options.logger.warn(
      { opsHost: settings.opsHost, port },
      `the ops server listens on ${settings.opsHost}: /healthz and /metrics answer anyone who reaches this address, without a token; set OPS_HOST=127.0.0.1 or keep the port off untrusted networks`,
    );
  }
  return { url: `http://${host}:${port}`, close: () => app.close() };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Why the ops server could not listen, naming the setting to change (exit code 2). */
function listenError(error: unknown, settings: Pick<Settings, 'opsHost' | 'opsPort'>): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${settings.opsHost}:${settings.opsPort}`;
  if (code === 'EADDRINUSE') {
    return new SettingsError(
      'OPS_PORT',
      `${where} is in use (another worker?): choose a free port, or 0 for any`,
    );
  }
  if (code === 'EACCES')
    return new SettingsError('OPS_PORT', `${where} needs privileges: choose a port above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new SettingsError(
      'OPS_HOST',
      `cannot listen on ${settings.opsHost}: no such address on this machine (${code})`,
    );
  }
  return error;
}

async function healthChecks(options: OpsServerOptions): Promise<Record<'redis' | 'store', string>> {
  const timeoutMs = options.healthTimeoutMs ?? 2000;
  const [redis, store] = await Promise.all([
    within(async () => void (await options.redis.ping()), timeoutMs),
    within(async () => void (await options.store.ping()), timeoutMs),
  ]);
  return { redis: redis ?? 'ok', store: store ?? 'ok' };
}
