import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { createFleetPace, fleetLateKey } from '../../jobs/fleet-pace.js';
import { jobNames } from '../../jobs/sync-job.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine } from './support/fake-engine.js';
import {
  eventually,
  type QueueFixture,
  queueFixture,
  startFixtureWorker,
  testRedisUrl,
} from './support/queue-fixture.js';

// Issue #35: a backfill beside the fleet's cycles gives way while scheduled runs start late.

const clients: Redis[] = [];
const fixtures: QueueFixture[] = [];
const workers: SyncWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(5000)));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
  await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
});

function redis(url = testRedisUrl, options: RedisOptions = {}) {
  const client = new Redis(url, options);
  clients.push(client);
  return client;
}

const settings = () => ({ queuePrefix: `test-${randomUUID().slice(0, 8)}`, queueName: 'tms-sync' });
const quick = { holdMs: 400, maxWaitMs: 5000, readEveryMs: 0 };

describe('the fleet pace', () => {
  it('makes a backfill in another process wait while a scheduled run started late, and no longer once the mark expired', async () => {
    const shared = settings();
    const cycles = createFleetPace({ redis: redis(), settings: shared, ...quick });
    const backfill = createFleetPace({ redis: redis(), settings: shared, ...quick });
    expect(await backfill.giveWay()).toBe(0);

    cycles.started(2000);
    await eventually(async () => (await clients[0]!.pttl(fleetLateKey(shared))) > 0, 2000, 'the mark');
    expect(await backfill.giveWay()).toBeGreaterThan(0);

    await eventually(async () => (await clients[0]!.exists(fleetLateKey(shared))) === 0, 5000, 'expiry');
    expect(await backfill.giveWay()).toBe(0);
  });

  it('is not marked late by a run that starts within lateAfterMs of its moment', async () => {
    const shared = settings();
    const pace = createFleetPace({ redis: redis(), settings: shared, ...quick, lateAfterMs: 500 });
    pace.started(500);
    pace.started(-3000);
    expect(await pace.giveWay()).toBe(0);
    expect(await clients[0]!.exists(fleetLateKey(shared))).toBe(0);
  });

  it('waits at most maxWaitMs at once, and stops waiting when the signal aborts', async () => {
    const shared = settings();
    const pace = createFleetPace({ redis: redis(), settings: shared, holdMs: 60_000, maxWaitMs: 50 });
    pace.started(10_000);
    expect(await pace.giveWay()).toBe(50);
    const stop = new AbortController();
    const long = createFleetPace({ redis: redis(), settings: shared, holdMs: 60_000, maxWaitMs: 60_000 });
    const waiting = long.giveWay(stop.signal);
    stop.abort(new Error('worker stopping'));
    await expect(waiting).rejects.toThrow('worker stopping');
  });

  it('counts the fleet as keeping time while Redis does not answer', async () => {
    const away = redis('redis://127.0.0.1:9', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const pace = createFleetPace({ redis: away, settings: settings(), readEveryMs: 0 });
    expect(await pace.giveWay()).toBe(0);
  });
});

describe('a worker with a pace', () => {
  const pacedWorker = async () => {
    const fixture = queueFixture();
    fixtures.push(fixture);
    const pace = createFleetPace({
      redis: fixture.connection(),
      settings: fixture.settings.worker,
      ...quick,
    });
    const engine = fakeEngine();
    workers.push(await startFixtureWorker(fixture, engine, { pace }));
    return { fixture, engine, pace };
  };

  it('lets a backfill give way, and not an incremental run', async () => {
    const { fixture, engine } = await pacedWorker();
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual', full: true });
    await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'manual' });
    await eventually(() => engine.runs.length === 2, 5000, 'both runs');
    const giveWayOf = (stream: string) => engine.runs.find((run) => run.stream === stream)?.options.giveWay;
    expect(giveWayOf('invoices')).toBeTypeOf('function');
    expect(giveWayOf('clients')).toBeUndefined();
  });

  it('marks the fleet late when a scheduled run starts late, and not when it starts on time', async () => {
    const { fixture, engine } = await pacedWorker();
    // As a job scheduler makes its ticks: delayed from their creation to their moment.
    const tick = (partition: string, options: { timestamp: number; delay: number }) =>
      fixture.queue.add(
        jobNames.tick,
        { stream: 'tasks', partition, trigger: 'schedule' },
        { ...options, jobId: `tick-${partition}` },
      );
    await tick('1001', { timestamp: Date.now(), delay: 1500 });
    await eventually(() => engine.runs.length === 1, 10_000, 'the tick on time');
    expect(await fixture.redis.exists(fleetLateKey(fixture.settings.worker))).toBe(0);
    await tick('1002', { timestamp: Date.now() - 5000, delay: 1000 });
    await eventually(() => engine.runs.length === 2, 10_000, 'the late tick');
    expect(await fixture.redis.exists(fleetLateKey(fixture.settings.worker))).toBe(1);
  });
});
