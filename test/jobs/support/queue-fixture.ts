import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { loadSettings } from '../../../config/load-settings.js';
import type { Settings } from '../../../config/settings.js';
import { openSyncQueue, type SyncQueue } from '../../../jobs/sync-queue.js';
import { type SyncWorker, type SyncWorkerOptions, startSyncWorker } from '../../../jobs/sync-worker.js';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const silentLogger = pino({ level: 'silent' });

/** A queue under a prefix no other test uses; `cleanup` deletes every key of it. */
export interface QueueFixture {
  readonly settings: Settings;
  readonly prefix: string;
  readonly redis: Redis;
  readonly queue: SyncQueue;
  /** A new connection (closed by `cleanup`), e.g. for a second worker. */
  connection(): Redis;
  cleanup(): Promise<void>;
}

/** Settings as the environment would give them, with a unique QUEUE_PREFIX on the test Redis. */
export function testSettings(env: NodeJS.ProcessEnv = {}): Settings {
  return loadSettings({
    TMS_BASE_URL: 'http://127.0.0.1:9',
    TMS_API_TOKEN: 'dev-api-token',
    REDIS_URL: testRedisUrl,
    QUEUE_PREFIX: `test-${randomUUID().slice(0, 8)}`,
    WORKER_LOCK_MS: '2000',
    JOB_BACKOFF_MS: '50',
    ...env,
  });
}

export function queueFixture(env: NodeJS.ProcessEnv = {}): QueueFixture {
  const settings = testSettings(env);
  const connections: Redis[] = [];
  const connection = () => {
    const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: null });
    connections.push(redis);
    return redis;
  };
  const redis = connection();
  const queue = openSyncQueue(settings, redis);
  return {
    settings,
    prefix: settings.worker.queuePrefix,
    redis,
    queue,
    connection,
    async cleanup() {
      await queue.close();
      await deleteKeysUnder(redis, settings.worker.queuePrefix);
      await Promise.all(connections.map((item) => item.quit().catch(() => undefined)));
    },
  };
}

/** A worker on the fixture's queue and settings, without schedulers unless `options` asks for them. */
export function startFixtureWorker(
  fixture: QueueFixture,
  engine: SyncWorkerOptions['engine'],
  options: Partial<SyncWorkerOptions> = {},
): Promise<SyncWorker> {
  return startSyncWorker({
    settings: fixture.settings,
    logger: silentLogger,
    engine,
    queue: fixture.queue,
    redis: fixture.connection(),
    schedule: false,
    ...options,
  });
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Deletes every Redis key under a queue prefix (a test's or a drill's own, never a shared one). */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  // In slices: a bench fleet leaves hundreds of thousands, too many for one call's arguments.
  for (let start = 0; start < keys.length; start += 10_000)
    await redis.del(...keys.slice(start, start + 10_000));
}
