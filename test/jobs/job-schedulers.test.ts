import { afterEach, describe, expect, it } from 'vitest';
import { syncSchedulers } from '../../jobs/job-schedulers.js';
import { startSyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, silentLogger } from './support/queue-fixture.js';

let fixture: QueueFixture;
afterEach(() => fixture?.cleanup());

describe('job schedulers', () => {
  it('upserts one scheduler per stream partition and does not pile up across restarts', async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1001,1002' });
    const first = await syncSchedulers(fixture.queue, fixture.settings);
    const second = await syncSchedulers(fixture.queue, fixture.settings);
    expect(second.upserted).toEqual(first.upserted);
    expect(first.upserted).toContain('sync:invoices:');
    expect(first.upserted).toContain('sync:invoices:deleted');
    expect(first.upserted).toContain('sync:tasks:1001');
    expect(first.upserted).toContain('sync:tasks:1002');
    const schedulers = await fixture.queue.getJobSchedulers(0, -1);
    expect(schedulers.map((item) => item.key).sort()).toEqual([...first.upserted].sort());
    expect(await fixture.queue.getDelayedCount()).toBeLessThanOrEqual(first.upserted.length);
  });

  it('removes the schedulers of partitions no longer configured', async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1001,1002' });
    await syncSchedulers(fixture.queue, fixture.settings);
    const fewer = { ...fixture.settings, operators: ['1001'] };
    const result = await syncSchedulers(fixture.queue, fewer);
    expect(result.removed).toContain('sync:tasks:1002');
    const keys = (await fixture.queue.getJobSchedulers(0, -1)).map((item) => item.key);
    expect(keys).not.toContain('sync:tasks:1002');
    expect(keys).toContain('sync:tasks:1001');
  });

  it('skips per-operator streams when no operators are configured', async () => {
    fixture = queueFixture();
    const result = await syncSchedulers(fixture.queue, fixture.settings);
    expect(result.skipped.map((item) => item.stream)).toContain('tasks');
    expect(result.upserted.some((id) => id.startsWith('sync:tasks:'))).toBe(false);
  });

  it('fires: every tick of a one-second schedule becomes one sync run', async () => {
    fixture = queueFixture();
    const settings = {
      ...fixture.settings,
      schedule: { everySeconds: 3600 },
      streamSchedules: { clients: { everySeconds: 1 } },
    };
    const engine = fakeEngine();
    const worker = await startSyncWorker({
      settings,
      logger: silentLogger,
      engine,
      queue: fixture.queue,
      redis: fixture.connection(),
    });
    try {
      await eventually(
        () => engine.runs.filter((run) => run.stream === 'clients' && run.partition === '').length >= 3,
        8000,
        'three clients runs',
      );
      const clientRuns = engine.runs.filter((run) => run.stream === 'clients' && run.partition === '');
      expect(clientRuns.every((run) => run.options.trigger === 'schedule')).toBe(true);
      // Each other partition ran once, at start: the first tick of a schedule comes at once.
      expect(engine.runs.filter((run) => run.stream === 'invoices' && run.partition === '')).toHaveLength(1);
      expect(engine.overlaps()).toBe(0);
    } finally {
      await worker.stop(5000);
    }
  });
});
