import { afterEach, describe, expect, it } from 'vitest';
import { backfillClassifier } from '../../jobs/backfill-priority.js';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { createRunSlots } from '../../jobs/run-slots.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine, gate } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

// Issue #35: fair to each connection. Counted, not timed: the fake engine counts runs in flight.

const fixtures: QueueFixture[] = [];
const workers: SyncWorker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(5000)));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
});

function connectionQueue(name = 'tms-sync') {
  const fixture = queueFixture({ QUEUE_NAME: name });
  fixtures.push(fixture);
  return fixture;
}

const slow = () => fakeEngine(() => new Promise((resolve) => setTimeout(() => resolve({}), 60)));

async function enqueuePartitions(fixture: QueueFixture, count: number, options: { backfill?: boolean } = {}) {
  for (let index = 0; index < count; index += 1)
    await enqueueRun(
      fixture.queue,
      { stream: 'tasks', partition: String(index), trigger: 'manual' },
      options,
    );
}

/** A worker of one run at a time, its first run (of `invoices`) held until `first` opens. */
async function oneRunHeld() {
  const fixture = connectionQueue();
  const first = gate();
  const engine = fakeEngine(async (run) => {
    if (engine.runs.indexOf(run) === 0) await first.wait;
    return {};
  });
  workers.push(await startFixtureWorker(fixture, engine, { concurrency: 1 }));
  await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
  await eventually(() => engine.runs.length === 1, 5000, 'the first run');
  return { fixture, engine, first };
}

describe('a connection within its share of the fleet', () => {
  it("never has more runs in flight than its queue's global concurrency, over every worker process", async () => {
    const fixture = connectionQueue();
    await fixture.queue.setGlobalConcurrency(2);
    const engine = slow();
    for (let worker = 0; worker < 3; worker += 1)
      workers.push(await startFixtureWorker(fixture, engine, { concurrency: 4 }));
    await enqueuePartitions(fixture, 12);
    await eventually(() => engine.runs.length === 12 && engine.runs.every((run) => run.finishedAt), 15_000);
    expect(engine.maxParallel()).toBe(2);
  });

  it("shares one process's run slots between its connections: a big backfill does not hold them all", async () => {
    const big = connectionQueue('tms-sync.big');
    const small = connectionQueue('tms-sync.small');
    const slots = createRunSlots(2);
    const bigEngine = slow();
    const smallEngine = slow();
    workers.push(await startFixtureWorker(big, bigEngine, { slots, concurrency: 2 }));
    workers.push(await startFixtureWorker(small, smallEngine, { slots, concurrency: 2 }));
    await enqueuePartitions(big, 20, { backfill: true });
    await eventually(() => bigEngine.runs.length >= 2, 5000, 'the backfill running');
    await enqueuePartitions(small, 1);
    await eventually(() => smallEngine.runs[0]?.finishedAt, 5000, "the small connection's run");
    // It ran while the backfill had most of its partitions still to run, and never past the slots.
    expect(bigEngine.runs.length).toBeLessThan(10);
    const inFlight = (at: number) =>
      [...bigEngine.runs, ...smallEngine.runs].filter(
        (run) => run.startedAt <= at && (run.finishedAt ?? Infinity) > at,
      ).length;
    const starts = [...bigEngine.runs, ...smallEngine.runs].map((run) => run.startedAt);
    expect(Math.max(...starts.map(inFlight))).toBeLessThanOrEqual(2);
  });

  it('runs incremental cycles before the backfills waiting in the same queue', async () => {
    const { fixture, engine, first } = await oneRunHeld();
    await enqueuePartitions(fixture, 3, { backfill: true });
    await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'schedule' });
    first.open();
    await eventually(() => engine.runs.length === 5, 5000, 'every run');
    expect(engine.runs.map((run) => run.stream)).toEqual(['invoices', 'clients', 'tasks', 'tasks', 'tasks']);
  });

  it('lets a backfill still waiting at its next request join the line: behind the incremental runs waiting, before later ones', async () => {
    const { fixture, engine, first } = await oneRunHeld();
    const backfill = { stream: 'tasks', partition: '1001', trigger: 'schedule' } as const;
    await enqueueRun(fixture.queue, backfill, { backfill: true });
    await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'schedule' });
    // The partition's next tick, while its backfill still waits behind every incremental run.
    expect((await enqueueRun(fixture.queue, backfill, { backfill: true })).state).toBe('deduplicated');
    expect(await fixture.queue.getPrioritizedCount()).toBe(0);
    await enqueueRun(fixture.queue, { stream: 'rides', partition: '1001', trigger: 'schedule' });
    first.open();
    await eventually(() => engine.runs.length === 4, 5000, 'every run');
    expect(engine.runs.map((run) => run.stream)).toEqual(['invoices', 'clients', 'tasks', 'rides']);
  });

  it('counts as a backfill a full run, or a run of a partition that never completed one', async () => {
    const classifier = backfillClassifier(async () => [{ stream: 'invoices', partition: '' }]);
    const run = (stream: string, full = false) => ({
      stream,
      partition: '',
      trigger: 'schedule' as const,
      full,
    });
    expect(await classifier.isBackfill(run('invoices'))).toBe(false);
    expect(await classifier.isBackfill(run('invoices', true))).toBe(true);
    expect(await classifier.isBackfill(run('clients'))).toBe(true);
    classifier.completed(run('clients'));
    await eventually(async () => !(await classifier.isBackfill(run('clients'))), 1000, 'learnt');
  });
});
