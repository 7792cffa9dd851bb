import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import type { TmsClient } from '../src/client/index.js';
import type { Logger } from '../src/logger.js';
import type { CommandOutbox } from '../src/store/outbox/outbox-types.js';
import { describeError } from '../src/tms-sync-error.js';
import type { Delivery } from '../src/write-back/deliver-command.js';
import { drainOutbox, touchedStreams } from '../src/write-back/drain-outbox.js';
import { dueOutboxes } from '../src/write-back/due-outboxes.js';
import { Queue } from './bullmq.js';
import { enqueueStreams } from './enqueue-run.js';
import type { SyncQueue } from './sync-queue.js';

/** One connection's write-back, as the process's delivery passes take it. */
export interface DeliveryTarget {
  /** The connection's name: one target per name. */
  readonly name: string;
  readonly settings: Settings;
  readonly logger: Logger;
  /** The engine's client: deliveries share its concurrency limit, request budget and breaker. */
  readonly client: TmsClient;
  readonly outbox: CommandOutbox;
  /** The sync queue: runs of the streams a delivered command changed are enqueued on it. */
  readonly syncQueue: SyncQueue;
  /** Told about every delivery (metrics). @default nothing */
  readonly onDelivery?: (delivery: Delivery) => void;
}

export interface CommandDeliveryOptions {
  /** How often the outboxes are asked whether they have work [COMMANDS_EVERY_MS]. */
  readonly everyMs: number;
}

/** The process's write-back: its connections' outboxes, delivered as they get work. */
export interface CommandDelivery {
  /** Delivers the target's commands from the next pass on. */
  add(target: DeliveryTarget): void;
  /** Takes no new pass of the connection; its pass in hand records its commands, within `timeoutMs`. */
  remove(name: string, timeoutMs: number): Promise<boolean>;
  /** Takes no new pass; the ones running record their commands in hand, within `timeoutMs`. */
  stop(timeoutMs: number): Promise<boolean>;
}

interface Entry extends DeliveryTarget {
  readonly stopping: AbortController;
  pass?: Promise<void> | undefined;
  /** Why its outbox could not be asked; undefined once it answers. */
  unreachable?: string | undefined;
  /** Its outbox could not be asked in the current round. */
  failedAsk?: boolean;
}

/**
 * The worker's write-back (docs/write-back.md): every `everyMs` the process asks its connections'
 * outboxes whether they have work, in one statement per PostgreSQL database however many
 * connections it serves, and runs a pass (drain-outbox.ts) of each that has: COMMANDS_CONCURRENCY
 * commands at once, then a run of every stream the done commands changed, so the mirror shows them
 * within one cycle. A connection's passes never overlap; those of several processes may, and share
 * the work through the claims (leases).
 */
export function startCommandDelivery(options: CommandDeliveryOptions): CommandDelivery {
  const owner = `worker:${hostname()}:${process.pid}`;
  const entries = new Map<string, Entry>();
  let asking = false;
  let stopped = false;

  const pass = async (entry: Entry) => {
    const report = await drainOutbox({
      client: entry.client,
      outbox: entry.outbox,
      owner,
      settings: entry.settings.commands,
      logger: entry.logger,
      signal: entry.stopping.signal,
    });
    for (const delivery of report.deliveries) entry.onDelivery?.(delivery);
    if (report.halted !== undefined)
      entry.logger.warn(
        { error: describeError(report.halted) },
        'command delivery paused: the TMS cannot be reached or refused the token',
      );
    const streams = touchedStreams(report.deliveries);
    if (streams.length > 0)
      await enqueueStreams(entry.syncQueue, entry.settings, { streams, trigger: 'command' });
  };
  const start = (entry: Entry) => {
    entry.pass = pass(entry)
      .catch((error: unknown) => entry.logger.error({ err: error }, 'command delivery pass failed'))
      .finally(() => {
        entry.pass = undefined;
      });
  };
  // Said once per connection and reason, not at every ask while its store stays away.
  const unreachable = (failed: readonly Entry[], error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    for (const entry of failed) {
      if (entry.unreachable !== reason)
        entry.logger.warn({ err: error }, 'cannot ask the outbox for commands to deliver; asked again soon');
      entry.unreachable = reason;
      entry.failedAsk = true;
    }
  };
  const timer = setInterval(() => {
    if (asking || stopped) return;
    const idle = [...entries.values()].filter((entry) => entry.pass === undefined);
    if (idle.length === 0) return;
    asking = true;
    for (const entry of idle) entry.failedAsk = false;
    dueOutboxes(idle, new Date(), unreachable)
      .then((due) => {
        for (const entry of idle) if (!entry.failedAsk) entry.unreachable = undefined;
        for (const entry of due)
          if (!stopped && entry.pass === undefined && !entry.stopping.signal.aborted) start(entry);
      })
      .finally(() => {
        asking = false;
      });
  }, options.everyMs);
  timer.unref();

  const finish = async (stopping: readonly Entry[], timeoutMs: number) => {
    for (const entry of stopping) entry.stopping.abort(new Error('worker stopping'));
    const passes = stopping.map((entry) => entry.pass).filter((pass) => pass !== undefined);
    const timeout = new Promise<boolean>((resolve) => setTimeout(resolve, timeoutMs, false).unref());
    return Promise.race([Promise.all(passes).then(() => true), timeout]);
  };
  return {
    add(target) {
      entries.set(target.name, { ...target, stopping: new AbortController() });
    },
    async remove(name, timeoutMs) {
      const entry = entries.get(name);
      entries.delete(name);
      return entry ? finish([entry], timeoutMs) : true;
    },
    async stop(timeoutMs) {
      stopped = true;
      clearInterval(timer);
      const all = [...entries.values()];
      entries.clear();
      return finish(all, timeoutMs);
    },
  };
}

/**
 * Deletes the queue `<QUEUE_NAME>-commands` where a worker of an earlier version ran its delivery
 * passes as jobs, its scheduler included: nothing takes them now.
 */
export async function forgetCommandQueue(settings: Settings, redis: Redis): Promise<void> {
  const name = `${settings.worker.queueName}-commands`;
  const { queuePrefix: prefix } = settings.worker;
  if ((await redis.exists(`${prefix}:${name}:meta`, `${prefix}:${name}:repeat`)) === 0) return;
  const queue = new Queue(name, { connection: redis, prefix });
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
  }
}
