import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings.js';
import { connectRedis } from './connect-redis.js';
import { queueKeyPrefix } from './sync-queue.js';

/**
 * The Redis channel on which `connections add|pause|resume|remove` tell the fleet that the control
 * table changed, so a worker of all connections reads it at once instead of at its next pass
 * (every 5 s). The passes stay: a message lost (Redis away, the CLI without it) costs 5 s at most.
 */
export function connectionNewsChannel(settings: Pick<Settings, 'worker'>): string {
  return `${queueKeyPrefix(settings.worker)}:connections-changed`;
}

/**
 * Tells the fleet the connections changed; false when Redis did not answer within `timeoutMs`
 * (the change is stored all the same and picked up by the workers' next pass).
 */
export async function announceConnectionChange(
  settings: Pick<Settings, 'redisUrl' | 'worker'>,
  timeoutMs = 1000,
): Promise<boolean> {
  let redis: Redis | undefined;
  try {
    redis = await connectRedis(settings, {
      timeoutMs,
      redis: { maxRetriesPerRequest: 1, retryStrategy: () => null },
    });
    redis.on('error', () => undefined);
    await redis.publish(connectionNewsChannel(settings), String(Date.now()));
    return true;
  } catch {
    return false;
  } finally {
    redis?.disconnect();
  }
}

/**
 * Calls `onNews` for each announcement, on a subscriber connection of its own (a subscribed
 * connection can do nothing else). Resolves once subscribed.
 */
export async function followConnectionNews(
  redis: Redis,
  settings: Pick<Settings, 'worker'>,
  onNews: () => void,
): Promise<{ stop(): Promise<void> }> {
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined);
  const channel = connectionNewsChannel(settings);
  subscriber.on('message', (from: string) => {
    if (from === channel) onNews();
  });
  await subscriber.subscribe(channel);
  return {
    async stop() {
      subscriber.disconnect();
    },
  };
}
