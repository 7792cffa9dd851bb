import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { abortableSleep } from '../src/client/abortable-sleep.js';
import { createLocalPause, type RequestBudget } from '../src/client/request-budget.js';
import { createExpiryReader } from './expiry-reader.js';

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
  const points = options.requestsPerSecond;
  const keyPrefix = options.keyPrefix ?? 'tms-sync:budget';
  // With no known allowance there is nothing to space: no bucket, no round trip per send.
  const limiter =
    points > 0
      ? new RateLimiterRedis({
          storeClient: options.redis,
          keyPrefix,
          points,
          duration: 1,
          execEvenly: true,
          insuranceLimiter: new RateLimiterMemory({ points, duration: 1 }),
        })
      : undefined;
  const tenant = createHash('sha256').update(options.apiToken).digest('hex').slice(0, 16);
  const key = `${options.origin}#${tenant}`;
  const pauseKey = `${keyPrefix}:pause:${key}`;
  const local = createLocalPause();
  const shared = createExpiryReader(() => options.redis.pttl(pauseKey).catch(() => 0), pauseReadMs);
  // The local pause only holds what Redis could not take, so deleting the key lifts a pause fleet-wide.
  const pausedForMs = async () => Math.max(local.remainingMs(), await shared.remainingMs());
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
        if (limiter === undefined) return 0;
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
      shared.extend(pauseMs);
    },
    pausedForMs,
  };
}

/**
 * How long one read of the shared pause answers for this process: a run's sends come in bursts
 * (the job's check, then its requests), and a round trip each was most of an idle run's cost. A
 * pause another worker asks for reaches this one's sends within this time.
 */
export const pauseReadMs = 50;
