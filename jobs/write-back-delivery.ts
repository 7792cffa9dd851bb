import { hostname } from 'node:os';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import type { WorkerSettings } from '../config/worker-settings.js';
import type { TmsClient } from '../src/client/index.js';
import type { Logger } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { describeError } from '../src/tms-sync-error.js';
import type { Delivery } from '../src/write-back/deliver-command.js';
import { drainOutbox, touchedStreams } from '../src/write-back/drain-outbox.js';
import { enqueueStreams } from './enqueue-run.js';
import type { SyncQueue } from './sync-queue.js';

const schedulerId = 'commands:deliver';
const jobName = 'deliver';

export interface CommandDeliveryOptions {
  readonly settings: Settings;
  readonly logger: Logger;
  /** Shared by the queue; the worker opens its own blocking connection from it. */
  readonly redis: Redis;
  /** The engine's client: deliveries share its concurrency limit, request budget and breaker. */
  readonly client: TmsClient;
  readonly store: Pick<Store, 'commands'>;
  /** The sync queue: runs of the streams a delivered command changed are enqueued on it. */
  readonly syncQueue: SyncQueue;
  /** Told about every delivery (metrics). @default nothing */
  readonly onDelivery?: (delivery: Delivery) => void;
}

export interface CommandDelivery {
  readonly queue: Queue;
  /** Takes no new pass; the one running records its commands in hand, within `timeoutMs`. */
  stop(timeoutMs: number): Promise<boolean>;
}

/** The queue of delivery passes, next to the sync queue (`<QUEUE_NAME>-commands`). */
export function commandQueueName(settings: { readonly worker: Pick<WorkerSettings, 'queueName'> }): string {
  return `${settings.worker.queueName}-commands`;
}

/**
 * The worker's write-back: a job scheduler emits a delivery pass every COMMANDS_EVERY_MS; a pass
 * (drain-outbox.ts) delivers what is due, COMMANDS_CONCURRENCY targets at once, and enqueues a
 * run of every stream the done commands changed, so the mirror shows them within one cycle. Any
 * number of workers may run passes at once: each command is claimed by one of them (leases).
 */
export async function startCommandDelivery(options: CommandDeliveryOptions): Promise<CommandDelivery> {
  const { settings, logger } = options;
  const connection = { connection: options.redis, prefix: settings.worker.queuePrefix };
  const queue = new Queue(commandQueueName(settings), connection);
  await queue.upsertJobScheduler(
    schedulerId,
    { every: settings.commands.everyMs },
    { name: jobName, opts: { attempts: 1, removeOnComplete: true, removeOnFail: 100 } },
  );
  const owner = `worker:${hostname()}:${process.pid}`;
  const stopping = new AbortController();
  const worker = new Worker(
    commandQueueName(settings),
    async (_job, _token, signal) => {
      const report = await drainOutbox({
        client: options.client,
        outbox: options.store.commands,
        owner,
        settings: settings.commands,
        logger,
        signal: signal ? AbortSignal.any([stopping.signal, signal]) : stopping.signal,
      });
      for (const delivery of report.deliveries) options.onDelivery?.(delivery);
      if (report.halted !== undefined)
        logger.warn(
          { error: describeError(report.halted) },
          'command delivery paused: the TMS cannot be reached or refused the token',
        );
      const streams = touchedStreams(report.deliveries);
      if (streams.length > 0)
        await enqueueStreams(options.syncQueue, settings, { streams, trigger: 'command' });
      return { delivered: report.deliveries.length, refused: report.refused, streams };
    },
    { ...connection, concurrency: 1, lockDuration: settings.worker.lockMs, name: owner },
  );
  worker.on('error', (error) => logger.error({ error: error.message }, 'command worker error'));
  await worker.waitUntilReady();
  return {
    queue,
    async stop(timeoutMs) {
      stopping.abort(new Error('worker stopping'));
      const closed = worker.close().then(() => true);
      const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref());
      const graceful = await Promise.race([closed, timeout]);
      if (!graceful) await worker.close(true);
      await queue.close();
      return graceful;
    },
  };
}
