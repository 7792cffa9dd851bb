import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { announceConnectionChange, followConnectionNews } from '../../jobs/connection-news.js';
import { eventually, testRedisUrl, testSettings } from './support/queue-fixture.js';

const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
afterAll(() => redis.quit());

describe('news of connection changes', () => {
  it('reaches the workers of the same queue prefix, once per announcement, and no other fleet', async () => {
    const settings = testSettings();
    const elsewhere = testSettings();
    const heard: string[] = [];
    const ours = await followConnectionNews(redis, settings, () => heard.push('ours'));
    const theirs = await followConnectionNews(redis, elsewhere, () => heard.push('theirs'));
    try {
      expect(await announceConnectionChange(settings)).toBe(true);
      expect(await announceConnectionChange(settings)).toBe(true);
      await eventually(() => heard.length >= 2, 5_000, 'both announcements heard');
      // Another fleet's announcement would have come by now on the same Redis.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual(['ours', 'ours']);
    } finally {
      await ours.stop();
      await theirs.stop();
    }
  });

  it('answers false when Redis does not answer: the change is read at the next pass', async () => {
    const settings = testSettings({ REDIS_URL: 'redis://127.0.0.1:9' });
    expect(await announceConnectionChange(settings, 500)).toBe(false);
  });
});
