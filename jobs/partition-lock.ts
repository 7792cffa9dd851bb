import type { Redis } from 'ioredis';
import type { StopSignal } from '../src/linked-signals.js';

// Renew or delete only while the lock still holds our token (another holder may have it by now).
const renewScript =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";
const releaseScript =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

export interface PartitionLockOptions {
  readonly redis: Redis;
  readonly key: string;
  /** Who holds it (the job id): only the holder renews or releases. */
  readonly owner: string;
  /** Expiry; renewed every third of it while held, so a killed holder frees it after at most this. */
  readonly ttlMs: number;
}

export interface PartitionLock {
  /** Aborted when a renewal finds the lock gone or taken: the run must stop. */
  readonly lost: StopSignal;
  release(): Promise<void>;
}

/**
 * The run lock of one stream partition (SET NX PX, renewed while held, released in `finally`),
 * across every worker process and machine. BullMQ deduplication already keeps jobs of one mode from
 * overlapping; this lock covers what it cannot (a full and an incremental request, a stalled job
 * whose first worker still runs). Returns null when another run holds it.
 */
export async function acquirePartitionLock(options: PartitionLockOptions): Promise<PartitionLock | null> {
  const { redis, key, owner, ttlMs } = options;
  const acquired = await redis.set(key, owner, 'PX', ttlMs, 'NX');
  if (acquired !== 'OK') return null;
  const lost = new AbortController();
  const timer = setInterval(
    () => {
      redis.eval(renewScript, 1, key, owner, ttlMs).then(
        (renewed) => {
          if (renewed !== 1) lost.abort(new Error(`partition lock ${key} was lost`));
        },
        (error: unknown) => lost.abort(error),
      );
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    lost: lost.signal,
    async release() {
      clearInterval(timer);
      await redis.eval(releaseScript, 1, key, owner);
    },
  };
}
