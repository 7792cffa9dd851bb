import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { followRuns } from '../../jobs/follow-runs.js';
import { acquirePartitionLock } from '../../jobs/partition-lock.js';
import { jobNames } from '../../jobs/sync-job.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine, gate } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

let fixture: QueueFixture;
const workers: SyncWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(5000)));
  await fixture?.cleanup();
});

async function startWorker(engine: ReturnType<typeof fakeEngine>) {
  const worker = await startFixtureWorker(fixture, engine);
  workers.push(worker);
  return worker;
}

describe('one run per stream partition', () => {
  it('folds requests made while a job waits into that job', async () => {
    fixture = queueFixture();
    const first = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    const second = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'webhook' });
    expect(first.state).toBe('queued');
    expect(second).toMatchObject({ state: 'deduplicated', jobId: first.jobId });
    expect(await fixture.queue.getWaitingCount()).toBe(1);
  });

  it('turns any number of requests during an active run into exactly one follow-up run', async () => {
    fixture = queueFixture();
    const release = gate();
    const engine = fakeEngine(async (run) => {
      if (engine.runs.indexOf(run) === 0) await release.wait;
      return {};
    });
    await startWorker(engine);
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'schedule' });
    await eventually(() => engine.runs.length === 1, 5000, 'the first run');
    const during = [];
    for (const trigger of ['manual', 'schedule', 'webhook', 'manual'] as const) {
      during.push(await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger }));
    }
    expect(during.every((run) => run.state === 'follow-up')).toBe(true);
    release.open();
    await eventually(async () => (await fixture.queue.getCompletedCount()) === 2, 5000, 'two completed jobs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.runs).toHaveLength(2);
    expect(engine.runs[1]!.options.trigger).toBe('manual');
    expect(engine.overlaps()).toBe(0);
  });

  it('never runs one partition in two workers at once, and runs different streams in parallel', async () => {
    fixture = queueFixture();
    const engine = fakeEngine(() => new Promise((resolve) => setTimeout(() => resolve({}), 150)));
    await startWorker(engine);
    await startWorker(engine);
    // A full and an incremental request have different deduplication ids: only the lock keeps them apart.
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual', full: true });
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await enqueueRun(fixture.queue, {
      stream: 'invoices',
      partition: '',
      trigger: 'manual',
      reconcile: true,
    });
    await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'manual' });
    await enqueueRun(fixture.queue, { stream: 'addressbook', partition: '', trigger: 'manual' });
    await eventually(
      async () => (await fixture.queue.getCompletedCount()) === 5,
      10_000,
      'five completed jobs',
    );
    expect(engine.runs).toHaveLength(5);
    expect(engine.overlaps()).toBe(0);
    expect(engine.maxParallel()).toBeGreaterThan(1);
  });
});

describe('a tick handed over to the running sync job of its partition', () => {
  it('folds into its one follow-up, and trigger --wait following the tick gets that run', async () => {
    fixture = queueFixture();
    const release = gate();
    const engine = fakeEngine(async (run) => {
      if (engine.runs.indexOf(run) === 0) await release.wait;
      return { inserted: engine.runs.indexOf(run) };
    });
    await startWorker(engine);
    const data = { stream: 'invoices', partition: '', trigger: 'schedule' } as const;
    await enqueueRun(fixture.queue, { ...data, trigger: 'manual' });
    await eventually(() => engine.runs.length === 1, 5000, 'the manual run');
    const tick = await fixture.queue.add(jobNames.tick, data);
    const followed = followRuns(fixture.queue, [
      { data, jobId: tick.id!, requestedId: tick.id!, state: 'queued' },
    ]);
    await eventually(async () => (await tick.getState()) === 'completed', 5000, 'the tick handed over');
    expect(engine.runs).toHaveLength(1);
    release.open();
    const [summary] = await followed;
    expect(summary).toMatchObject({ result: 'succeeded', stream: 'invoices', inserted: 1 });
    expect(engine.runs).toHaveLength(2);
    expect(engine.overlaps()).toBe(0);
  });
});

describe('acquirePartitionLock', () => {
  it('is held by one owner at a time, renewed while held and free again after release', async () => {
    fixture = queueFixture();
    const key = `${fixture.prefix}:lock-test`;
    const lock = await acquirePartitionLock({ redis: fixture.redis, key, owner: 'a', ttlMs: 300 });
    expect(lock).not.toBeNull();
    expect(await acquirePartitionLock({ redis: fixture.redis, key, owner: 'b', ttlMs: 300 })).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await fixture.redis.get(key)).toBe('a');
    await lock!.release();
    const next = await acquirePartitionLock({ redis: fixture.redis, key, owner: 'b', ttlMs: 300 });
    expect(next).not.toBeNull();
    await next!.release();
  });

  it('signals the holder when the lock was taken from it', async () => {
    fixture = queueFixture();
    const key = `${fixture.prefix}:lock-test`;
    const lock = await acquirePartitionLock({ redis: fixture.redis, key, owner: 'a', ttlMs: 300 });
    await fixture.redis.set(key, 'someone else');
    await eventually(() => lock!.lost.aborted, 2000, 'the lost signal');
    await lock!.release();
    expect(await fixture.redis.get(key)).toBe('someone else');
  });
});
