import type { Redis } from 'ioredis';
import type { WorkerSettings } from '../config/worker-settings.js';
import { abortableSleep } from '../src/client/abortable-sleep.js';
import type { StopSignal } from '../src/linked-signals.js';
import { createExpiryReader } from './expiry-reader.js';
import { queueKeyPrefix } from './sync-queue.js';

export interface FleetPaceOptions {
  readonly redis: Redis;
  /** The fleet's queue settings: its processes share one mark under this queue's keys. */
  readonly settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>;
  /** A scheduled run starting later than this after its moment marks the fleet late. @default 500 */
  readonly lateAfterMs?: number;
  /**
   * How long one late start keeps the fleet marked late. @default 10000 (2 s let a backfill come back
   * at full speed between late starts: it went on and off, and the cycles stayed late)
   */
  readonly holdMs?: number;
  /** The longest one give-way waits: a backfill still moves on at least this often. @default 1000 */
  readonly maxWaitMs?: number;
  /** How long one read of the mark answers for this process. @default 250 */
  readonly readEveryMs?: number;
}

/**
 * Whether the fleet keeps time, for its backfills to give way when it does not. Every process
 * tells it when a scheduled run starts late; backfills ask it before each page they fetch.
 */
export interface FleetPace {
  /** A scheduled run starts `lateMs` after its moment. */
  started(lateMs: number): void;
  /**
   * Resolves at once while the fleet keeps time (with 0); while it is late, once the mark expires
   * or after `maxWaitMs`, whichever comes first, with the ms it waited. Rejects when `signal` aborts.
   */
  giveWay(signal?: StopSignal): Promise<number>;
}

/** The key of the mark: set (with an expiry) while scheduled runs of the fleet start late. */
export function fleetLateKey(settings: Pick<WorkerSettings, 'queuePrefix' | 'queueName'>): string {
  return `${queueKeyPrefix(settings)}:fleet:late`;
}

/**
 * Incremental cycles go before backfills in the queue (backfill-priority.ts), but a backfill that
 * is running takes CPU, the TMS and the store from every cycle of the fleet, in its process and in
 * the others on the same machines and database. So a scheduled run that starts late marks the fleet
 * late in Redis for `holdMs`, and a backfill waits before its next page while the mark lasts (at
 * most `maxWaitMs` a page, so it never stops for good on a fleet that is always behind). One write
 * per `readEveryMs` at most, only when late; one read per `readEveryMs` by a process that backfills.
 * While Redis does not answer the fleet counts as keeping time.
 */
export function createFleetPace(options: FleetPaceOptions): FleetPace {
  const { redis } = options;
  const key = fleetLateKey(options.settings);
  const lateAfterMs = options.lateAfterMs ?? 500;
  const holdMs = options.holdMs ?? 10_000;
  const maxWaitMs = options.maxWaitMs ?? 1000;
  const readEveryMs = options.readEveryMs ?? 250;
  const mark = createExpiryReader(() => redis.pttl(key).catch(() => 0), readEveryMs);
  let writtenAt = Number.NEGATIVE_INFINITY;
  return {
    started(lateMs) {
      if (lateMs <= lateAfterMs) return;
      mark.extend(holdMs);
      const now = performance.now();
      if (now - writtenAt < readEveryMs) return;
      writtenAt = now;
      redis.set(key, '1', 'PX', holdMs).catch(() => undefined);
    },
    async giveWay(signal) {
      const waitMs = Math.min(maxWaitMs, await mark.remainingMs());
      if (waitMs <= 0) return 0;
      await abortableSleep(waitMs, signal);
      return waitMs;
    },
  };
}
