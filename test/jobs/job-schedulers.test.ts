import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../config/settings.js';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { intervalOfTicksMs, syncSchedulers, tickEveryMs } from '../../jobs/job-schedulers.js';
import { jobNames, type QueueJob, ranPartition, type SyncJobData } from '../../jobs/sync-job.js';
import { startSyncWorker } from '../../jobs/sync-worker.js';
import { formatQueueStatus, readQueueStatus } from '../../src/cli/queue-status.js';
import { fakeEngine, gate } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, silentLogger } from './support/queue-fixture.js';

let fixture: QueueFixture;
afterEach(() => fixture?.cleanup());

/** A finished job that ran the clients partition. */
const ranClients = (job: QueueJob) => ranPartition(job.returnvalue) && job.returnvalue.stream === 'clients';

/** A worker with its schedulers, every schedule hourly but the overrides given (one-second ones). */
async function startScheduledWorker(engine: ReturnType<typeof fakeEngine>, overrides: Partial<Settings>) {
  fixture = queueFixture();
  return startSyncWorker({
    settings: { ...fixture.settings, schedule: { everySeconds: 3600 }, ...overrides },
    logger: silentLogger,
    engine,
    queue: fixture.queue,
    redis: fixture.connection(),
  });
}

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

  it('past a thousand schedulers (read and added a thousand at a time): each partition its scheduler and one first tick, none twice on restart, exactly the dropped ones removed', async () => {
    const operators = Array.from({ length: 120 }, (_, index) => String(1001 + index));
    fixture = queueFixture({ TMS_OPERATORS: operators.join(',') });
    const first = await syncSchedulers(fixture.queue, fixture.settings);
    const plain = first.upserted.filter((id) => id.startsWith('sync:'));
    expect(plain.length).toBeGreaterThan(1000);
    const keys = async () => (await fixture.queue.getJobSchedulers(0, -1)).map((item) => item.key).sort();
    expect(await keys()).toEqual([...first.upserted].sort());
    // Each plain scheduler's first tick, added at once (a reconcile scheduler's is nightly): one a
    // partition. The schedulers' own ticks (ids `repeat:...`) come due meanwhile; they are not counted.
    const waitingTicks = async () => {
      const perPartition = new Map<string, number>();
      for (const job of await fixture.queue.getWaiting(0, -1)) {
        if (job.name !== jobNames.tick || job.id?.startsWith('repeat:')) continue;
        const data = job.data as SyncJobData;
        const id = `sync:${data.stream}:${data.partition}`;
        perPartition.set(id, (perPartition.get(id) ?? 0) + 1);
      }
      return perPartition;
    };
    const ticked = await waitingTicks();
    expect([...ticked.keys()].sort()).toEqual([...plain].sort());
    expect(Math.max(...ticked.values())).toBe(1);

    const again = await syncSchedulers(fixture.queue, fixture.settings);
    expect(again.removed).toEqual([]);
    expect(await waitingTicks()).toEqual(ticked);

    const dropped = operators.slice(100);
    const fewer = await syncSchedulers(fixture.queue, {
      ...fixture.settings,
      operators: operators.slice(0, 100),
    });
    const ofDropped = first.upserted.filter((id) => dropped.some((operator) => id.endsWith(`:${operator}`)));
    expect(ofDropped.length).toBeGreaterThan(200);
    expect([...fewer.removed].sort()).toEqual([...ofDropped].sort());
    expect(await keys()).toEqual([...fewer.upserted].sort());
  }, 60_000);

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

  it('schedules only the configured streams (streams.include less streams.exclude), removing the others', async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1001' });
    await syncSchedulers(fixture.queue, fixture.settings);
    const chosen = {
      ...fixture.settings,
      streams: { include: ['invoices', 'tasks', 'chat_messages'], exclude: ['chat_messages'], history: [] },
    };
    const result = await syncSchedulers(fixture.queue, chosen);
    expect(result.upserted).toEqual([
      'sync:invoices:',
      'reconcile:invoices:',
      'sync:invoices:deleted',
      'sync:tasks:1001',
    ]);
    expect(result.removed).toContain('sync:chat_messages:1001');
    const keys = (await fixture.queue.getJobSchedulers(0, -1)).map((item) => item.key);
    expect(keys.sort()).toEqual([...result.upserted].sort());
  });

  it('adds a nightly reconcile scheduler where a reconcile run finds more, settable or off per stream', async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1001' });
    const settings = {
      ...fixture.settings,
      streamReconcileSchedules: { clients: { cron: '30 1 * * *' }, addressbook: false as const },
    };
    const { upserted } = await syncSchedulers(fixture.queue, settings);
    const reconcile = upserted.filter((id) => id.startsWith('reconcile:'));
    // Sequence streams (their default listing), child streams, chat windows; never a snapshot.
    expect(reconcile).toEqual([
      'reconcile:invoices:',
      'reconcile:invoice_lines:',
      'reconcile:invoice_payments:',
      'reconcile:clients:',
      'reconcile:client_contacts:',
      'reconcile:client_addressbook:',
      'reconcile:chat_messages:1001',
    ]);
    const schedulers = await fixture.queue.getJobSchedulers(0, -1);
    const patternOf = (id: string) => schedulers.find((item) => item.key === id)?.pattern;
    expect(patternOf('reconcile:invoices:')).toBe('0 3 * * *');
    expect(patternOf('reconcile:clients:')).toBe('30 1 * * *');
    // `status` shows when hard deletes are next looked for.
    const text = formatQueueStatus(await readQueueStatus(settings), new Date());
    const next = schedulers.filter((item) => item.key.startsWith('reconcile:')).map((item) => item.next!);
    expect(text).toContain(
      `hard deletes: next reconcile ${new Date(Math.min(...next)).toISOString()} (7 partitions; schedulers reconcile:*)`,
    );
    const off = await syncSchedulers(fixture.queue, { ...settings, reconcileSchedule: false as const });
    expect(off.removed.filter((id) => id !== 'reconcile:clients:').sort()).toEqual(
      reconcile.filter((id) => id !== 'reconcile:clients:').sort(),
    );
  });

  it("spreads the ticks of an interval over it, partition by partition, and ticks a new partition's scheduler once at once", async () => {
    const operators = Array.from({ length: 40 }, (_, i) => String(1001 + i));
    fixture = queueFixture({ TMS_OPERATORS: operators.join(',') });
    const settings = {
      ...fixture.settings,
      schedule: { everySeconds: 3600 },
      reconcileSchedule: false as const,
    };
    const before = Date.now();
    const { upserted } = await syncSchedulers(fixture.queue, settings);
    const next = (await fixture.queue.getJobSchedulers(0, -1))
      .filter((item) => item.key.startsWith('sync:tasks:'))
      .map((item) => item.next! - before);
    expect(next).toHaveLength(40);
    // Ticks 2% early (at most 5 s), so a run's start delay never stretches a gap past the hour.
    const periods = (await fixture.queue.getJobSchedulers(0, -1)).map((item) => item.every);
    expect(new Set(periods)).toEqual(new Set([3_595_000]));
    expect([tickEveryMs(1000), tickEveryMs(60_000), tickEveryMs(3_600_000)]).toEqual([
      980, 58_800, 3_595_000,
    ]);
    for (const seconds of [1, 5, 60, 99, 100, 240, 249, 250, 300, 3600])
      expect(intervalOfTicksMs(tickEveryMs(seconds * 1000))).toBe(seconds * 1000);
    // 40 slots spread over the hour: some in each quarter, none two alike.
    for (let quarter = 0; quarter < 4; quarter++)
      expect(next.filter((ms) => Math.floor(ms / 900_000) === quarter).length).toBeGreaterThan(0);
    expect(new Set(next).size).toBe(40);
    // Each new scheduler's first tick did not wait for its slot: one tick job each, waiting now. A
    // scheduler's own tick (`repeat:` ids) is waiting too when its slot of the hour fell meanwhile.
    const firstTicks = async () =>
      (await fixture.queue.getWaiting(0, -1)).filter((job) => !job.id?.startsWith('repeat:')).length;
    expect(await firstTicks()).toBe(upserted.length);
    await syncSchedulers(fixture.queue, settings);
    expect(await firstTicks()).toBe(upserted.length);
    // `status` lists the 20 next due, not every one of hundreds; `--json` has up to 1,000.
    const status = await readQueueStatus(settings);
    const text = formatQueueStatus(status, new Date());
    const listed = text.split('\n').filter((line) => /^ {2}sync:/.test(line));
    expect(listed).toHaveLength(20);
    expect(text).toContain(`schedulers: ${upserted.length}, the 20 next due:`);
    expect(text).toContain(`(\`status --json\` lists the ${upserted.length} next due)`);
    expect(status.reachable && status.status.schedulers).toHaveLength(upserted.length);
  });

  it('skips per-operator streams when no operators are configured', async () => {
    fixture = queueFixture();
    const result = await syncSchedulers(fixture.queue, fixture.settings);
    expect(result.skipped.map((item) => item.stream)).toContain('tasks');
    expect(result.upserted.some((id) => id.startsWith('sync:tasks:'))).toBe(false);
  });

  it('fires: every tick of a one-second schedule becomes one sync run', async () => {
    const engine = fakeEngine();
    const worker = await startScheduledWorker(engine, { streamSchedules: { clients: { everySeconds: 1 } } });
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

  it('runs a scheduled run in its tick job: one job per run, no sync job made', async () => {
    const engine = fakeEngine();
    const worker = await startScheduledWorker(engine, { streamSchedules: { clients: { everySeconds: 1 } } });
    try {
      const clientRuns = () => engine.runs.filter((run) => run.stream === 'clients' && run.partition === '');
      await eventually(() => clientRuns().length >= 3, 8000, 'three clients runs');
      await eventually(
        async () => (await fixture.queue.getJobs(['completed'])).filter(ranClients).length >= 3,
        5000,
        'three completed clients runs',
      );
      const completed = await fixture.queue.getJobs(['completed', 'waiting', 'active', 'delayed']);
      expect(completed.filter((job) => job.name === jobNames.sync)).toEqual([]);
      expect(completed.filter(ranClients).every((job) => job.name === jobNames.tick)).toBe(true);
    } finally {
      await worker.stop(5000);
    }
  });

  it("folds the ticks during a partition's running sync job into one follow-up run", async () => {
    const release = gate();
    const engine = fakeEngine(async (run) => {
      if (run.options.trigger === 'manual') await release.wait;
      return {};
    });
    const worker = await startScheduledWorker(engine, { streamSchedules: { clients: { everySeconds: 1 } } });
    try {
      const clientRuns = () => engine.runs.filter((run) => run.stream === 'clients' && run.partition === '');
      await eventually(() => clientRuns().length >= 1, 8000, 'the first scheduled clients run');
      await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'manual' });
      await eventually(
        () => clientRuns().some((run) => run.options.trigger === 'manual'),
        8000,
        'the manual run',
      );
      const before = clientRuns().length;
      // Three ticks come while the manual run holds the partition: none runs beside it.
      await new Promise((resolve) => setTimeout(resolve, 3200));
      expect(clientRuns()).toHaveLength(before);
      // No tick after this: what runs once the manual run ends is what the three became.
      await fixture.queue.removeJobScheduler('sync:clients:');
      release.open();
      await eventually(() => clientRuns().length >= before + 1, 8000, 'the follow-up');
      await eventually(
        async () => (await fixture.queue.getActiveCount()) + (await fixture.queue.getWaitingCount()) === 0,
        8000,
        'the queue idle',
      );
      expect(clientRuns()).toHaveLength(before + 1);
      // The manual run's sync job and the one follow-up the ticks folded into; nothing else was queued.
      const syncJobs = (await fixture.queue.getJobs(['completed', 'waiting', 'active', 'delayed'])).filter(
        (job) => job.name === jobNames.sync,
      );
      expect(syncJobs).toHaveLength(2);
      expect(engine.overlaps()).toBe(0);
    } finally {
      release.open();
      await worker.stop(5000);
    }
  });

  it('fires reconcile runs on the reconcile schedule', async () => {
    const engine = fakeEngine();
    const worker = await startScheduledWorker(engine, {
      streamReconcileSchedules: { clients: { everySeconds: 1 } },
    });
    try {
      const reconciling = () =>
        engine.runs.filter((run) => run.stream === 'clients' && run.options.reconcile);
      await eventually(() => reconciling().length >= 2, 8000, 'two clients reconcile runs');
      expect(reconciling().every((run) => run.partition === '' && run.options.trigger === 'schedule')).toBe(
        true,
      );
      expect(engine.runs.filter((run) => run.stream === 'invoices' && run.options.reconcile)).toEqual([]);
    } finally {
      await worker.stop(5000);
    }
  });
});
