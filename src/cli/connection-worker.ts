import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings.js';
import { backfillClassifier } from '../../jobs/backfill-priority.js';
import { createFleetPace, type FleetPace } from '../../jobs/fleet-pace.js';
import type { Readiness } from '../../jobs/readiness.js';
import { createRedisBudget } from '../../jobs/redis-request-budget.js';
import type { RunSlots } from '../../jobs/run-slots.js';
import { openSyncQueue, type SyncQueue } from '../../jobs/sync-queue.js';
import { type StopOptions, type SyncWorker, startSyncWorker } from '../../jobs/sync-worker.js';
import { readHeartbeats } from '../../jobs/worker-heartbeat.js';
import {
  type CommandDelivery,
  forgetCommandQueue,
  startCommandDelivery,
} from '../../jobs/write-back-delivery.js';
import type { Logger } from '../logger.js';
import { createSyncMetrics, type SyncMetrics } from '../ops/sync-metrics.js';
import { readinessAtMostEvery, workerReadiness } from '../ops/worker-readiness.js';
import { selectPartitions } from '../sync/select-partitions.js';
import { createSyncEngine, type SyncEngine } from '../sync/sync-engine.js';
import { readHealth } from './stream-status.js';

export interface ConnectionWorkerOptions {
  /** The connection's settings (resolve-connection.ts): its queue, store, TMS and tokens. */
  readonly settings: Settings;
  /** The process's Redis connection; the caller owns it. */
  readonly redis: Redis;
  readonly logger: Logger;
  /**
   * What a worker of many connections adds (`worker --all-connections`): the process's run slots,
   * backfills behind incremental runs, every metric labelled with the connection, this many
   * jobs held at once, and the fleet's pace (one for all its connections). @default one
   * connection alone, as `worker` always ran, its pace its queue's
   */
  readonly fleet?: { readonly slots: RunSlots; readonly concurrency: number; readonly pace: FleetPace };
  /** The process's write-back delivery, shared by its connections. @default one of this connection alone */
  readonly delivery?: CommandDelivery;
}

/** How long a connection's readiness, read for its heartbeat or a scrape, serves the next ones in a worker of many. */
const fleetReadinessMs = 60_000;

/** One connection's part of a worker: its engine, queue and metrics, then its jobs once started. */
export interface ConnectionWorker {
  readonly settings: Settings;
  readonly queue: SyncQueue;
  readonly engine: SyncEngine;
  readonly metrics: SyncMetrics;
  readonly readiness: () => Promise<Readiness>;
  /** Upserts its schedulers, then takes its sync jobs and delivers its write-back commands. */
  start(): Promise<void>;
  /** Takes no new job; false when it had to force (sync-worker.ts `stop`). Nothing to stop before `start`. */
  stop(timeoutMs: number, options?: StopOptions): Promise<boolean>;
  /** Releases the queue, the metrics and the engine (not Redis); after `stop`. */
  close(): Promise<void>;
}

/**
 * Opens a connection's engine (its store reached: a store that cannot be, throws), its queue,
 * readiness and metrics; `start` then runs its jobs. Its TMS requests take from the fleet's budget
 * of its own token, in Redis.
 */
export async function openConnectionWorker(options: ConnectionWorkerOptions): Promise<ConnectionWorker> {
  const { settings, redis, logger, fleet } = options;
  const budget =
    settings.baseUrl && settings.apiToken
      ? createRedisBudget({
          redis,
          origin: new URL(settings.baseUrl).origin,
          apiToken: settings.apiToken,
          requestsPerSecond: settings.tms.maxRequestsPerSecond,
        })
      : undefined;
  const engine = await createSyncEngine({
    settings,
    logger,
    clientOptions: { budget },
    // The stores of one database share the process's pool (shared-pools.ts): one for the runs the
    // process may hold over all its connections, the metrics and the outbox.
    ...(fleet ? { poolSize: settings.worker.concurrency + 2 } : {}),
  });
  const queue = openSyncQueue(settings, redis);
  // Read per scrape and readiness check: the configured partitions listed once, then two reads.
  const configured = selectPartitions([], settings);
  const { store, client } = engine.context;
  const partitions = () => readHealth(store, new Date(), configured);
  const readiness = workerReadiness({ settings, redis, store, client, partitions });
  // A worker of many connections beats for each every 10 s and is scraped for each: reading every
  // one's readiness each time cost more than its runs. /readyz still asks afresh.
  const recentReadiness = fleet ? readinessAtMostEvery(readiness, fleetReadinessMs) : readiness;
  const metrics = createSyncMetrics({
    jobCounts: () => queue.getJobCounts(),
    partitions,
    readiness: recentReadiness,
    workers: () => readHeartbeats(redis, settings.worker),
    heldDeletes: () => store.heldDeletes(),
    // Responses are seen by origin, not by client: connections of one TMS host would count each
    // other's, so a worker of many leaves the count by status out (tms_sync_tms_* stay per client).
    tmsOrigin: settings.baseUrl && !fleet ? new URL(settings.baseUrl).origin : undefined,
    traffic: () => client.traffic(),
    commandCounts: () => store.commands.counts(),
  });
  let sync: SyncWorker | undefined;
  const ownDelivery = options.delivery === undefined;
  const delivery = options.delivery ?? startCommandDelivery({ everyMs: settings.commands.everyMs });
  let delivering = false;
  return {
    settings,
    queue,
    engine,
    metrics,
    readiness,
    async start() {
      sync = await startSyncWorker({
        settings,
        logger,
        engine,
        queue,
        redis,
        budget,
        onRun: (summary) => metrics.observeRun(summary),
        onRetry: (data) => metrics.observeRetry(data.stream),
        readiness: recentReadiness,
        pace: fleet?.pace ?? createFleetPace({ redis, settings: settings.worker }),
        ...(fleet
          ? {
              slots: fleet.slots,
              concurrency: fleet.concurrency,
              classifier: backfillClassifier(() => store.lastSuccesses()),
            }
          : {}),
      });
      // Write-back (docs/write-back.md): delivery passes beside the sync jobs, on the same client.
      await forgetCommandQueue(settings, redis);
      const name = settings.connection;
      delivery.add({ name, settings, logger, client, outbox: store.commands, syncQueue: queue });
      delivering = true;
    },
    async stop(timeoutMs, stopOptions) {
      const commandsStopped = !delivering
        ? true
        : ownDelivery
          ? delivery.stop(timeoutMs)
          : delivery.remove(settings.connection, timeoutMs);
      const [graceful, commandsGraceful] = await Promise.all([
        sync?.stop(timeoutMs, stopOptions) ?? true,
        commandsStopped,
      ]);
      return graceful && commandsGraceful;
    },
    async close() {
      if (ownDelivery) await delivery.stop(0);
      metrics.close();
      await queue.close();
      await engine.close();
    },
  };
}
