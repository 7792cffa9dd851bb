import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { fakeEngine } from './support/fake-engine.js';
import { eventually, type QueueFixture, queueFixture, startFixtureWorker } from './support/queue-fixture.js';

let fixture: QueueFixture;
let worker: SyncWorker | undefined;
afterEach(async () => {
  await worker?.stop(5000);
  await fixture?.cleanup();
});

describe('a run in the worker that changed what other streams read', () => {
  it('that queued parents enqueues one run of each child stream at once, coalesced across parent runs', async () => {
    // One job at a time: both parent partitions run before the child runs they ask for.
    fixture = queueFixture({ WORKER_CONCURRENCY: '1' });
    const engine = fakeEngine((run) => (run.stream === 'invoices' ? { records: 3 } : {}));
    // Queued before the worker starts: the order of the runs is the queue's.
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'webhook' });
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: 'deleted', trigger: 'webhook' });
    await enqueueRun(fixture.queue, { stream: 'clients', partition: '', trigger: 'webhook' });
    worker = await startFixtureWorker(fixture, engine);
    await eventually(() => engine.runs.length >= 5, 10_000, 'the child runs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.runs.map((run) => `${run.stream}/${run.partition}:${run.options.trigger}`)).toEqual([
      'invoices/:webhook',
      'invoices/deleted:webhook',
      'clients/:webhook',
      'invoice_lines/:parent',
      'invoice_payments/:parent',
    ]);
  });

  it('leaves out a child stream the configuration excludes', async () => {
    fixture = queueFixture({ WORKER_CONCURRENCY: '1' });
    const engine = fakeEngine((run) => (run.stream === 'invoices' ? { records: 3 } : {}));
    worker = await startFixtureWorker(fixture, engine, {
      settings: {
        ...fixture.settings,
        streams: { include: undefined, exclude: ['invoice_payments'], history: [] },
      },
    });
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    await eventually(() => engine.runs.length >= 2, 10_000, 'the child run');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.runs.map((run) => run.stream)).toEqual(['invoices', 'invoice_lines']);
  });

  it("enqueues, after an operator's tasks changed, the streams whose ids come from them, for that operator only", async () => {
    fixture = queueFixture({ WORKER_CONCURRENCY: '1', TMS_OPERATORS: '1001,1002' });
    let first = true;
    const engine = fakeEngine((run) => {
      if (run.stream !== 'tasks') return {};
      // The first run of tasks/1001 inserted its tasks; the next one found them unchanged.
      const changed = first;
      first = false;
      return changed ? { records: 4, inserted: 4 } : { records: 4, unchanged: 4 };
    });
    worker = await startFixtureWorker(fixture, engine);
    await enqueueRun(fixture.queue, { stream: 'tasks', partition: '1001', trigger: 'manual' });
    await eventually(() => engine.runs.length >= 5, 10_000, 'the dependent runs');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.runs.map((run) => `${run.stream}/${run.partition}:${run.options.trigger}`)).toEqual([
      'tasks/1001:manual',
      'goods/1001:parent',
      'task_packaging_balances/1001:parent',
      'client_packaging_balances/1001:parent',
      'dossier_folders/1001:parent',
    ]);
    await enqueueRun(fixture.queue, { stream: 'tasks', partition: '1001', trigger: 'manual' });
    await eventually(() => engine.runs.length >= 6, 10_000, 'the second tasks run');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(engine.runs).toHaveLength(6);
  });
});
