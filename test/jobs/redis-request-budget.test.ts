import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisBudget, pauseReadMs } from '../../jobs/redis-request-budget.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

/** Two workers' budgets for one TMS tenant (each with its own Redis connection, as two processes). */
function twoWorkers(requestsPerSecond: number) {
  const keyPrefix = `tms-sync-test:budget:${randomUUID()}`;
  prefixes.push(keyPrefix);
  const options = { origin: 'http://tms.test', apiToken: 'tenant-token', requestsPerSecond, keyPrefix };
  const connections = [redis.duplicate(), redis.duplicate()];
  return {
    budgets: connections.map((connection) => createRedisBudget({ ...options, redis: connection })),
    close: () => Promise.all(connections.map((connection) => connection.quit())),
  };
}

describe('the request budget shared through Redis', () => {
  it('keeps two workers together within the allowance', async () => {
    const { budgets, close } = twoWorkers(20);
    try {
      const started = performance.now();
      // 60 sends at 20/s between them: three one-second windows, whoever sends.
      await Promise.all(budgets.flatMap((budget) => Array.from({ length: 30 }, () => budget.take())));
      expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
    } finally {
      await close();
    }
  });

  it("holds every worker's sends for a 429's Retry-After that one worker got", async () => {
    const { budgets, close } = twoWorkers(0);
    try {
      await budgets[1]!.take();
      await budgets[0]!.pause(1000);
      // The other worker's sends see it once their last read of the pause is that old (and a
      // timer may fire a millisecond before performance.now() says it is due).
      await sleep(pauseReadMs + 10);
      const started = performance.now();
      await budgets[1]!.take();
      expect(performance.now() - started).toBeGreaterThanOrEqual(850);
    } finally {
      await close();
    }
  });

  it('lets other tenants of the same TMS send meanwhile', async () => {
    const { budgets, close } = twoWorkers(0);
    const keyPrefix = prefixes.at(-1)!;
    const other = createRedisBudget({
      redis,
      origin: 'http://tms.test',
      apiToken: 'another-tenant',
      requestsPerSecond: 0,
      keyPrefix,
    });
    try {
      await budgets[0]!.pause(5000);
      const started = performance.now();
      await other.take();
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await close();
    }
  });

  it('keeps the longest pause asked for, and tells every worker what remains of it', async () => {
    const { budgets, close } = twoWorkers(0);
    try {
      await budgets[0]!.pause(60_000);
      await budgets[1]!.pause(1000);
      const left = await budgets[1]!.pausedForMs();
      expect(left).toBeGreaterThan(55_000);
      expect(left).toBeLessThanOrEqual(60_000);
    } finally {
      await close();
    }
  });

  it('answers at once, sending nothing, when the pause outlasts what the caller may wait', async () => {
    const { budgets, close } = twoWorkers(0);
    try {
      await budgets[0]!.pause(60_000);
      const started = performance.now();
      const paused = await budgets[1]!.take(undefined, 1000);
      expect(performance.now() - started).toBeLessThan(500);
      expect(paused).toBeGreaterThan(55_000);
    } finally {
      await close();
    }
  });

  it('reads the shared pause once for the sends of a burst, and its own pause holds its next send at once', async () => {
    const { budgets, close } = twoWorkers(0);
    try {
      const monitor = redis.duplicate();
      const reads: string[] = [];
      await monitor.monitor().then((feed) =>
        feed.on('monitor', (_time, args: string[]) => {
          if (args[0]?.toLowerCase() === 'pttl' && args[1]?.startsWith(prefixes.at(-1)!)) reads.push(args[1]);
        }),
      );
      try {
        await Promise.all(Array.from({ length: 10 }, () => budgets[0]!.take()));
        await budgets[0]!.take();
        await sleep(20);
        expect(reads.length).toBeLessThanOrEqual(2);
        await budgets[0]!.pause(300);
        const started = performance.now();
        await budgets[0]!.take();
        expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      } finally {
        monitor.disconnect();
      }
    } finally {
      await close();
    }
  });

  it('lifts the pause for the whole fleet when its Redis key is deleted', async () => {
    const { budgets, close } = twoWorkers(0);
    const keyPrefix = prefixes.at(-1)!;
    try {
      await budgets[0]!.pause(60_000);
      const keys = await redis.keys(`${keyPrefix}:pause:*`);
      expect(keys).toHaveLength(1);
      await redis.del(...keys);
      await sleep(pauseReadMs);
      expect(await budgets[0]!.pausedForMs()).toBe(0);
      expect(await budgets[1]!.take(undefined, 1000)).toBe(0);
    } finally {
      await close();
    }
  });
});
