import { type Command, Option } from 'commander';
import { defaultConnectionName } from '../../config/connections/connection-name.js';
import { loadSettings } from '../../config/load-settings.js';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { connectRedis } from '../../jobs/connect-redis.js';
import { followConnectionPause } from '../../jobs/follow-connection-pause.js';
import { openSyncQueue, type SyncQueue } from '../../jobs/sync-queue.js';
import { connectionStateReader } from '../connections/connection-state.js';
import { loadConnection } from '../connections/load-connection.js';
import { createLogger, type Logger } from '../logger.js';
import { fleetReadiness, mergedMetrics } from '../ops/fleet-ops.js';
import { type OpsServer, startOpsServer } from '../ops/ops-server.js';
import { exitCodes, runCommand } from './cli-failure.js';
import { withConnection } from './cli-logger.js';
import { type ConnectionFlag, connectionOption } from './connection-option.js';
import { type ConnectionWorker, openConnectionWorker } from './connection-worker.js';
import { startWorkerFleet, type WorkerFleet } from './worker-fleet.js';

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
        '(docs/connections.md).\n' +
        'With --all-connections the workers serve the default connection and every connection that is not\n' +
        'paused (config file and `connections add`), each on its own queue and store, one ops server a\n' +
        'process; each connection runs in WORKER_CONNECTION_OWNERS (1) of the live --all-connections\n' +
        'processes, and moves when one joins, stops or is lost (15 s). Connections added, paused or\n' +
        'removed are followed at once (the command tells them through Redis), at the latest within 5 s.\n' +
        'WORKER_CONCURRENCY runs at once\n' +
        'in the process, at most WORKER_CONNECTION_CONCURRENCY of one connection over every worker, backfills\n' +
        'after incremental runs (docs/worker.md, "Many connections in one worker").',
    )
    .addOption(connectionOption())
    .addOption(
      new Option(
        '--all-connections',
        "serve every connection, shared with the fleet's other --all-connections processes (each its own queue and store), following connections add|pause|resume|remove",
      )
        // Where the command line is fixed (the image's `worker`), as TMS_CONNECTION for one connection.
        .env('TMS_ALL_CONNECTIONS'),
    )
    .action(async (flags: ConnectionFlag & { allConnections?: boolean }, command: Command) => {
      await runCommand('worker', async () =>
        allConnections(flags, command)
          ? runWorker(loadSettings(), startFleetWorker)
          : runWorker(await loadConnection(flags.connection), startWorker),
      );
      // Bounded exit: nothing left open (a keep-alive socket, a timer) may hold the process.
      process.exit();
    });
}

/**
 * Whether the worker serves every connection: `--all-connections`, or TMS_ALL_CONNECTIONS set to
 * 1, true, yes or on (Commander takes any value of a flag's variable as set: `false` would be).
 */
function allConnections(flags: ConnectionFlag & { allConnections?: boolean }, command: Command): boolean {
  const all =
    command.getOptionValueSource('allConnections') === 'env' ? allFromEnv() : flags.allConnections === true;
  const connectionGiven = ['cli', 'env'].includes(command.getOptionValueSource('connection') ?? '');
  if (all && connectionGiven)
    throw new SettingsError(
      '--all-connections',
      'serves every connection: give it or --connection, not both',
    );
  return all;
}

function allFromEnv(): boolean {
  const value = (process.env.TMS_ALL_CONNECTIONS ?? '').trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(value)) return false;
  throw new SettingsError(
    'TMS_ALL_CONNECTIONS',
    `"${value}" is neither true (1, true, yes, on) nor false (0, false, no, off)`,
  );
}

/** A started worker: it stops taking jobs (false when it had to force), then releases everything. */
interface RunningWorker {
  stop(timeoutMs: number): Promise<boolean>;
  closeAll(): Promise<void>;
}

/** Runs until SIGINT or SIGTERM; resolves with the exit code. @default start: one connection's worker */
export async function runWorker(
  settings: Settings,
  start: (settings: Settings, logger: Logger) => Promise<RunningWorker> = startWorker,
): Promise<number> {
  const stopSignal = nextSignal();
  const logger = withConnection(createLogger({ level: settings.logLevel }), settings);
  // A signal during start-up (Redis or the store slow to answer) stops it too: nothing runs yet.
  const starting = start(settings, logger);
  const first = await Promise.race([
    starting.then((running) => ({ running })),
    stopSignal.then((signal) => ({ signal })),
  ]);
  if ('signal' in first) {
    logger.info({ signal: first.signal }, 'stopped during start-up');
    starting.then((running) => running.closeAll()).catch(() => undefined);
    return exitCodes.ok;
  }
  const { running } = first;
  try {
    const signal = await stopSignal;
    logger.info({ signal }, 'stopping: no new jobs; running ones stop after their page in hand');
    const graceful = await running.stop(settings.worker.shutdownTimeoutMs);
    logger.info({ graceful }, 'worker stopped');
    return graceful ? exitCodes.ok : exitCodes.failed;
  } finally {
    await running.closeAll();
  }
}

/**
 * Connects Redis (failing within seconds, REDIS_URL named), opens the connection's engine, binds
 * the ops server, then starts the sync worker and the write-back delivery.
 */
async function startWorker(settings: Settings, logger: Logger): Promise<RunningWorker> {
  const redis = await connectRedis(settings);
  const connection = await openConnectionWorker({ settings, redis, logger }).catch(async (error: unknown) => {
    await redis.quit().catch(() => undefined);
    throw error;
  });
  const { queue, metrics } = connection;
  const paused = await followPause(settings, queue, logger);
  // One connection per process: every series of another connection than the default says which.
  if (settings.connection !== defaultConnectionName)
    metrics.registry.setDefaultLabels({ connection: settings.connection });
  let ops: OpsServer | undefined;
  const closeAll = async () => {
    await paused.stop();
    await ops?.close();
    await connection.close();
    await redis.quit().catch(() => undefined);
  };
  try {
    // Listening before the first job is taken: a port in use stops the start (exit code 2),
    // not a worker that already holds jobs.
    ops = await startOpsServer({
      settings,
      queue,
      redis,
      store: connection.engine.context.store,
      metrics,
      logger,
      readiness: connection.readiness,
    });
    await connection.start();
    logger.info(
      { ops: ops.url, queue: settings.worker.queueName, concurrency: settings.worker.concurrency },
      'worker started',
    );
    return { stop: (timeoutMs) => connection.stop(timeoutMs), closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * `--all-connections`: Redis, then the ops server (`/metrics` of every connection, labelled; its
 * dashboard and webhook on the default connection's queue), then every connection (worker-fleet.ts).
 */
async function startFleetWorker(settings: Settings, logger: Logger): Promise<RunningWorker> {
  const redis = await connectRedis(settings);
  const defaultQueue = openSyncQueue(settings, redis);
  let fleet: WorkerFleet | undefined;
  const running = () => fleet?.running() ?? [];
  const named = () =>
    running().map((worker) => ({ name: worker.settings.connection, readiness: worker.readiness }));
  let ops: OpsServer | undefined;
  const closeAll = async () => {
    await ops?.close();
    await defaultQueue.close();
    await redis.quit().catch(() => undefined);
  };
  try {
    ops = await startOpsServer({
      settings,
      queue: defaultQueue,
      redis,
      // Liveness asks that some store answers: one connection's store away must not restart them all.
      store: {
        ping: async () => void (running().length > 0 && (await Promise.any(running().map(pingStore)))),
      },
      metrics: { registry: mergedMetrics(() => running().map((worker) => worker.metrics.registry)) },
      logger,
      readiness: fleetReadiness(redis, named),
    });
    fleet = await startWorkerFleet({ file: settings, redis, logger });
    logger.info(
      {
        ops: ops.url,
        connections: running().map((worker) => worker.settings.connection),
        fleet: fleet.members().length,
        concurrency: settings.worker.concurrency,
        connectionConcurrency: settings.worker.connectionConcurrency,
      },
      'worker started',
    );
    const started = fleet;
    return { stop: (timeoutMs) => started.stop(timeoutMs), closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

const pingStore = (worker: ConnectionWorker) => worker.engine.context.store.ping();

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
