import pMap from 'p-map';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { FollowTimeoutError, followRuns, startFollowing } from '../../jobs/follow-runs.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine, gate } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

let fixture: QueueFixture;
let worker: SyncWorker | undefined;
afterEach(async () => {
  await worker?.stop(5000);
  worker = undefined;
  await fixture?.cleanup();
});

describe('following runs to their end (trigger --wait)', () => {
  it('hears the end of more runs than the queue keeps completed jobs of (1,000), each its own result', async () => {
    const partitions = Array.from({ length: 1100 }, (_, index) => String(1001 + index));
    fixture = queueFixture({ WORKER_CONCURRENCY: '16', TMS_OPERATORS: partitions.join(',') });
    // Each run's own result in its pages (rows written would enqueue the streams reading tasks).
    const engine = fakeEngine((run) => ({ pages: Number(run.partition) }));
    const follower = await startFollowing(fixture.queue);
    try {
      worker = await startFixtureWorker(fixture, engine);
      const runs = await pMap(
        partitions,
        (partition) => enqueueRun(fixture.queue, { stream: 'tasks', partition, trigger: 'manual' }),
        { concurrency: 64 },
      );
      await eventually(
        async () => (await fixture.queue.getCompletedCount()) >= 1000 && engine.runs.length === 1100,
        60_000,
        'every run',
      );
      // The first runs' jobs are gone from the queue by now: only their ends, heard, tell how they went.
      await eventually(
        async () => (await fixture.queue.getJob(runs[0]!.jobId)) === undefined,
        10_000,
        'removal',
      );
      const summaries = await follower.follow(runs);
      expect(summaries.filter((summary) => summary.result !== 'succeeded')).toEqual([]);
      expect(summaries.map((summary) => summary.pages)).toEqual(partitions.map(Number));
    } finally {
      await follower.close();
    }
  }, 90_000);

  it('follows a run folded into a running job through that job to its follow-up, and reports progress', async () => {
    fixture = queueFixture();
    const release = gate();
    let released = false;
    void release.wait.then(() => {
      released = true;
    });
    const engine = fakeEngine(async (run) => {
      if (engine.runs.indexOf(run) === 0) {
        // A page now and then until released (the worker reports progress at most once a second).
        for (let pages = 1; !released; pages++) {
          run.options.onProgress?.({ pages, records: pages * 10, elapsedMs: pages * 100 } as never);
          await Promise.race([release.wait, new Promise((resolve) => setTimeout(resolve, 100))]);
        }
      }
      return { inserted: engine.runs.indexOf(run) + 1 };
    });
    worker = await startFixtureWorker(fixture, engine);
    const data = { stream: 'invoices', partition: '', trigger: 'manual' } as const;
    await enqueueRun(fixture.queue, data);
    await eventually(() => engine.runs.length === 1, 5000, 'the first run');
    const folded = await enqueueRun(fixture.queue, data);
    expect(folded.state).toBe('follow-up');
    const progress: number[] = [];
    const followed = followRuns(fixture.queue, [folded], {
      onProgress: (_run, reported) => progress.push(reported.records),
    });
    await eventually(() => progress.length > 0, 5000, "the running job's progress");
    release.open();
    const [summary] = await followed;
    expect(summary).toMatchObject({ result: 'succeeded', stream: 'invoices', inserted: 2 });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((records) => records > 0 && records % 10 === 0)).toBe(true);
  });

  it('finds a run that ended before its events were read by looking its job up', async () => {
    fixture = queueFixture();
    const engine = fakeEngine(() => ({ pages: 3 }));
    worker = await startFixtureWorker(fixture, engine);
    const run = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await eventually(
      async () => (await fixture.queue.getJobState(run.jobId)) === 'completed',
      5000,
      'the run',
    );
    const [summary] = await followRuns(fixture.queue, [run], { timeoutMs: 3000 });
    expect(summary).toMatchObject({ result: 'succeeded', stream: 'invoices', pages: 3 });
  });

  it('gives up after its timeout naming a job still running, which goes on in the queue', async () => {
    fixture = queueFixture();
    const release = gate();
    const engine = fakeEngine(async () => {
      await release.wait;
      return {};
    });
    worker = await startFixtureWorker(fixture, engine);
    const run = await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await eventually(() => engine.runs.length === 1, 5000, 'the run');
    await expect(followRuns(fixture.queue, [run], { timeoutMs: 300 })).rejects.toThrow(
      new FollowTimeoutError(
        `1 job(s) not finished in time, ${run.jobId} among them (they go on in the queue)`,
      ),
    );
    expect(await fixture.queue.getJobState(run.jobId)).toBe('active');
    release.open();
  });
});
