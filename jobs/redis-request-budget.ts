import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { abortableSleep } from '../src/client/abortable-sleep.js';
import type { RequestBudget } from '../src/client/index.js';

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

/** Far above any TMS: with no known allowance the bucket only carries the fleet's pauses. */
const unlimited = 1_000_000;

/**
 * The TMS's allowance shared by every worker of the fleet through Redis (rate-limiter-flexible):
 * one bucket per TMS origin and tenant, `requestsPerSecond` per second, sends spread evenly; a 429's
 * Retry-After blocks the bucket, so every worker holds off, not only the one refused. While Redis
 * cannot be reached each process falls back to a bucket of its own (the library's insurance).
 */
export function createRedisBudget(options: RedisBudgetOptions): RequestBudget {
  const points = options.requestsPerSecond > 0 ? options.requestsPerSecond : unlimited;
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: options.keyPrefix ?? 'tms-sync:budget',
    points,
    duration: 1,
    execEvenly: options.requestsPerSecond > 0,
    insuranceLimiter: new RateLimiterMemory({ points, duration: 1 }),
  });
  const tenant = createHash('sha256').update(options.apiToken).digest('hex').slice(0, 16);
  const key = `${options.origin}#${tenant}`;
  return {
    async take(signal) {
      for (;;) {
        signal?.throwIfAborted();
        try {
          await limiter.consume(key);
          return;
        } catch (refusal) {
          if (!(refusal instanceof RateLimiterRes)) throw refusal;
          await abortableSleep(Math.max(1, refusal.msBeforeNext), signal);
        }
      }
    },
    async pause(ms) {
      await limiter.block(key, Math.max(1, Math.ceil(ms / 1000)));
    },
  };
}
