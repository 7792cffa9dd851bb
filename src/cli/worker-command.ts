import type { Command } from 'commander';
import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { connectRedis } from '../../jobs/connect-redis.js';
import { followConnectionPause } from '../../jobs/follow-connection-pause.js';
import { createRedisBudget } from '../../jobs/redis-request-budget.js';
import { openSyncQueue, type SyncQueue } from '../../jobs/sync-queue.js';
import { startSyncWorker } from '../../jobs/sync-worker.js';
import { readHeartbeats } from '../../jobs/worker-heartbeat.js';
import { startCommandDelivery } from '../../jobs/write-back-delivery.js';
import { connectionStateReader } from '../connections/connection-state.js';
import { loadConnection } from '../connections/load-connection.js';
import { createLogger, type Logger } from '../logger.js';
import { type OpsServer, startOpsServer } from '../ops/ops-server.js';
import { createSyncMetrics } from '../ops/sync-metrics.js';
import { workerReadiness } from '../ops/worker-readiness.js';
import { selectPartitions } from '../sync/select-partitions.js';
import { createSyncEngine } from '../sync/sync-engine.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { withConnection } from './cli-logger.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { readHealth } from './stream-status.js';

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'The daemon: job schedulers per stream partition, sync jobs, the ops HTTP server (docs/worker.md).',
    )
    .addHelpText(
      'after',
      '\nSchedules the configured streams (streams.include/exclude of the config file) per partition, and a\n' +
        'reconcile run for hard deletes (reconcileSchedule, nightly by default); a run that queued parents\n' +
        'enqueues its child streams at once. Expands `trigger` requests with this configuration, and\n' +
        'delivers the write-back outbox (docs/write-back.md).\n' +
        'Stops gracefully on SIGINT/SIGTERM within SHUTDOWN_TIMEOUT_MS (exit 0; 1 when it had to force), also\n' +
        'while starting. Exit code 2 when Redis (REDIS_URL) or the store cannot be reached at start (Redis:\n' +
        'within 5 s), or the ops server cannot listen (OPS_HOST, OPS_PORT).\n' +
        'One worker serves one connection: with --connection NAME its queue is QUEUE_NAME.NAME (the default\n' +
        "connection's keys unchanged); give each worker process its own OPS_PORT. It follows `connections\n" +
        "pause|resume|remove` within 5 s: a paused or removed connection's queue takes no new job\n" +
        '(docs/connections.md).',
    )
    .addOption(connectionOption())
    .action(async (flags: ConnectionFlag) => {
      await runCommand('worker', async () => runWorker(await loadConnection(flags.connection)));
      // Bounded exit: nothing left open (a keep-alive socket, a timer) may hold the process.
      process.exit();
    });
}

/** Runs until SIGINT or SIGTERM; resolves with the exit code. */
export async function runWorker(settings: Settings): Promise<number> {
  const stopSignal = nextSignal();
  const logger = withConnection(createLogger({ level: settings.logLevel }), settings);
  // A signal during start-up (Redis or the store slow to answer) stops it too: nothing runs yet.
  const starting = startWorker(settings, logger);
  const first = await Promise.race([
    starting.then((running) => ({ running })),
    stopSignal.then((signal) => ({ signal })),
  ]);
  if ('signal' in first) {
    logger.info({ signal: first.signal }, 'stopped during start-up');
    starting.then((running) => running.closeAll()).catch(() => undefined);
    return exitCodes.ok;
  }
  const { worker, commands, closeAll } = first.running;
  try {
    const signal = await stopSignal;
    logger.info({ signal }, 'stopping: no new jobs; running ones stop after their page in hand');
    const [graceful, commandsGraceful] = await Promise.all([
      worker.stop(settings.worker.shutdownTimeoutMs),
      commands.stop(settings.worker.shutdownTimeoutMs),
    ]);
    logger.info({ graceful: graceful && commandsGraceful }, 'worker stopped');
    return graceful && commandsGraceful ? exitCodes.ok : exitCodes.failed;
  } finally {
    await closeAll();
  }
}

/**
 * Connects Redis (failing within seconds, REDIS_URL named), opens the engine, binds the ops server,
 * then starts the sync worker and the write-back delivery.
 */
async function startWorker(settings: Settings, logger: Logger) {
  const redis = await connectRedis(settings);
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
  const paused = await followPause(settings, queue, logger);
  // Read per scrape and readiness check: the configured partitions listed once, then two reads.
  const configured = selectPartitions([], settings);
  const partitions = () => readHealth(engine.context.store, new Date(), configured);
  const { store, client } = engine.context;
  const readiness = workerReadiness({ settings, redis, store, client, partitions });
  const metrics = createSyncMetrics({
    jobCounts: () => queue.getJobCounts(),
    partitions,
    readiness,
    workers: () => readHeartbeats(redis, settings.worker),
    heldDeletes: () => engine.context.store.heldDeletes(),
    tmsOrigin: settings.baseUrl ? new URL(settings.baseUrl).origin : undefined,
    traffic: () => engine.context.client.traffic(),
    commandCounts: () => engine.context.store.commands.counts(),
  });
  // One connection per process: every series of another connection than the default says which.
  if (settings.connection !== defaultConnectionName)
    metrics.registry.setDefaultLabels({ connection: settings.connection });
  let ops: OpsServer | undefined;
  const closeAll = async () => {
    await paused.stop();
    await ops?.close();
    metrics.close();
    await queue.close();
    await redis.quit().catch(() => undefined);
    await engine.close();
  };
  try {
    // Listening before the first job is taken: a port in use stops the start (exit code 2),
    // not a worker that already holds jobs.
    ops = await startOpsServer({
      settings,
      queue,
      redis,
      store: engine.context.store,
      metrics,
      logger,
      readiness,
    });
    const worker = await startSyncWorker({
      settings,
      logger,
      engine,
      queue,
      redis,
      budget,
      onRun: (summary) => metrics.observeRun(summary),
      onRetry: (data) => metrics.observeRetry(data.stream),
      readiness,
    });
    // Write-back (docs/write-back.md): delivery passes beside the sync jobs, on the same client.
    const commands = await startCommandDelivery({
      settings,
      logger,
      redis,
      client: engine.context.client,
      store: engine.context.store,
      syncQueue: queue,
    });
    logger.info(
      { ops: ops.url, queue: settings.worker.queueName, concurrency: settings.worker.concurrency },
      'worker started',
    );
    return { worker, commands, closeAll };
  } catch (error) {
    await closeAll();
    throw error;
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

/**
 * A connection other than the default follows `connections pause|resume|remove` (and the file's
 * `paused`) by pausing its queue; the default connection's worker is as it always was.
 */
async function followPause(
  settings: Settings,
  queue: SyncQueue,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  if (settings.connection === defaultConnectionName) return { stop: async () => {} };
  const reader = connectionStateReader(loadSettings(), settings.connection);
  const follower = await followConnectionPause({ queue, read: reader.read, logger });
  return {
    stop: async () => {
      follower.stop();
      await reader.close();
    },
  };
}
