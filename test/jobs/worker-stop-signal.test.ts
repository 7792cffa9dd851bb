import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

const fixtures: QueueFixture[] = [];
const workers: SyncWorker[] = [];
const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
afterEach(async () => {
  process.off('warning', onWarning);
  await Promise.all(workers.splice(0).map((worker) => worker.stop(5000)));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
});

describe("a worker's stop signal", () => {
  it('is linked to 16 jobs at once without Node suspecting a listener leak', async () => {
    process.on('warning', onWarning);
    const fixture = queueFixture();
    fixtures.push(fixture);
    const engine = fakeEngine(() => new Promise((resolve) => setTimeout(() => resolve({}), 300)));
    workers.push(await startFixtureWorker(fixture, engine, { concurrency: 16 }));
    for (let index = 0; index < 16; index += 1)
      await enqueueRun(fixture.queue, { stream: 'tasks', partition: String(index), trigger: 'manual' });
    await eventually(() => engine.runs.length === 16 && engine.runs.every((run) => run.finishedAt), 15_000);
    expect(engine.maxParallel()).toBeGreaterThan(10);
    // Node emits its warnings on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
