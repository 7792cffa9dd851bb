import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { abortableSleep } from '../src/client/abortable-sleep.js';
import { createLocalPause, type RequestBudget } from '../src/client/request-budget.js';

export interface RedisBudgetOptions {
  readonly redis: Redis;
  /** The TMS origin (`https://host:port`). */
  readonly origin: string;
  /** The tenant's API token: its hash keys the budget, so workers of one tenant share it. */
  readonly apiToken: string;
  /** The allowance [TMS_MAX_RPS]; 0 = none known (only the pauses after a 429 are shared). */
  readonly requestsPerSecond: number;
  /** @default 'tms-sync:budget' */
  readonly keyPrefix?: string;
}

/** Far above any TMS: with no known allowance the bucket only spaces nothing. */
const unlimited = 1_000_000;

// A pause only ever grows: a shorter Retry-After got later must not cut a longer one short.
const extendPauseScript =
  "if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end return 1";

/**
 * The TMS's allowance shared by every worker of the fleet through Redis: one budget per TMS origin
 * and tenant. The rate (`requestsPerSecond`, sends spread evenly) is a rate-limiter-flexible bucket;
 * a 429's Retry-After is a pause key (`<prefix>:pause:<origin>#<tenant>`, expiring when the pause
 * ends), so every worker holds off, not only the one refused, and the worker delays jobs while it
 * lasts. While Redis cannot be reached each process falls back to a bucket and pauses of its own.
 */
export function createRedisBudget(options: RedisBudgetOptions): RequestBudget {
  const points = options.requestsPerSecond > 0 ? options.requestsPerSecond : unlimited;
  const keyPrefix = options.keyPrefix ?? 'tms-sync:budget';
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix,
    points,
    duration: 1,
    execEvenly: options.requestsPerSecond > 0,
    insuranceLimiter: new RateLimiterMemory({ points, duration: 1 }),
  });
  const tenant = createHash('sha256').update(options.apiToken).digest('hex').slice(0, 16);
  const key = `${options.origin}#${tenant}`;
  const pauseKey = `${keyPrefix}:pause:${key}`;
  const local = createLocalPause();
  // The local pause only holds what Redis could not take, so deleting the key lifts a pause fleet-wide.
  const pausedForMs = async () => {
    const shared = await options.redis.pttl(pauseKey).catch(() => 0);
    return Math.max(local.remainingMs(), shared);
  };
  return {
    async take(signal, maxWaitMs = Number.POSITIVE_INFINITY) {
      const deadline = performance.now() + maxWaitMs;
      for (;;) {
        signal?.throwIfAborted();
        const paused = await pausedForMs();
        if (paused > deadline - performance.now()) return paused;
        if (paused > 0) {
          await abortableSleep(paused, signal);
          continue;
        }
        try {
          await limiter.consume(key);
          return 0;
        } catch (refusal) {
          if (!(refusal instanceof RateLimiterRes)) throw refusal;
          await abortableSleep(Math.max(1, refusal.msBeforeNext), signal);
        }
      }
    },
    async pause(ms) {
      const pauseMs = Math.max(1, Math.ceil(ms));
      await options.redis.eval(extendPauseScript, 1, pauseKey, pauseMs).catch(() => local.extend(pauseMs));
    },
    pausedForMs,
  };
}
