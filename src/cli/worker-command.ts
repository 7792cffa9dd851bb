import type { Command } from 'commander';
import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { createRedisBudget } from '../../jobs/redis-request-budget.js';
import { openRedis, openSyncQueue } from '../../jobs/sync-queue.js';
import { startSyncWorker } from '../../jobs/sync-worker.js';
import { createLogger } from '../logger.js';
import { startOpsServer } from '../ops/ops-server.js';
import { createSyncMetrics } from '../ops/sync-metrics.js';
import { createSyncEngine } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { readStatus } from './status-command.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'The daemon: job schedulers per stream partition, sync jobs, the ops HTTP server (docs/worker.md).',
    )
    .addHelpText(
      'after',
      '\nStops gracefully on SIGINT/SIGTERM within SHUTDOWN_TIMEOUT_MS (exit 0; 1 when it had to force).',
    )
    .action(async () => {
      await runCommand('worker', () => runWorker(loadSettings()));
      // Bounded exit: nothing left open (a keep-alive socket, a timer) may hold the process.
      process.exit();
    });
}

/** Runs until SIGINT or SIGTERM; resolves with the exit code. */
export async function runWorker(settings: Settings): Promise<number> {
  const stopSignal = nextSignal();
  const logger = createLogger({ level: settings.logLevel });
  const redis = openRedis(settings);
  // Every worker of the fleet takes from one budget per TMS tenant, kept in Redis.
  const budget =
    settings.baseUrl && settings.apiToken
      ? createRedisBudget({
          redis,
          origin: new URL(settings.baseUrl).origin,
          apiToken: settings.apiToken,
          requestsPerSecond: settings.tms.maxRequestsPerSecond,
        })
      : undefined;
  const engine = await createSyncEngine({ settings, logger, clientOptions: { budget } }).catch(
    async (error: unknown) => {
      await redis.quit().catch(() => undefined);
      throw error;
    },
  );
  const queue = openSyncQueue(settings, redis);
  const metrics = createSyncMetrics({
    jobCounts: () => queue.getJobCounts(),
    lags: () => readStatus(engine.context.store, new Date()),
    heldDeletes: () => engine.context.store.heldDeletes(),
    tmsOrigin: settings.baseUrl ? new URL(settings.baseUrl).origin : undefined,
    traffic: () => engine.context.client.traffic(),
  });
  const closeAll = async () => {
    metrics.close();
    await queue.close();
    await redis.quit().catch(() => undefined);
    await engine.close();
  };
  try {
    const worker = await startSyncWorker({
      settings,
      logger,
      engine,
      queue,
      redis,
      onRun: (summary) => metrics.observeRun(summary),
      onRetry: (data) => metrics.observeRetry(data.stream),
    });
    const ops = await startOpsServer({
      settings,
      queue,
      redis,
      store: engine.context.store,
      metrics,
      logger,
    });
    logger.info(
      { ops: ops.url, queue: settings.worker.queueName, concurrency: settings.worker.concurrency },
      'worker started',
    );
    const signal = await stopSignal;
    logger.info({ signal }, 'stopping: no new jobs; running ones stop after their page in hand');
    const graceful = await worker.stop(settings.worker.shutdownTimeoutMs);
    await ops.close();
    logger.info({ graceful }, 'worker stopped');
    return graceful ? exitCodes.ok : exitCodes.failed;
  } finally {
    await closeAll();
  }
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second signal while stopping ends the process at once.
      process.once('SIGINT', () => process.exit(exitCodes.failed));
      process.once('SIGTERM', () => process.exit(exitCodes.failed));
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
