import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SettingsError } from '../../config/settings-error.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { trigger } from '../../src/cli/trigger-command.js';
import { UnknownStreamError } from '../../src/sync/sync-errors.js';
import { fakeEngine, gate } from './support/fake-engine.js';
import {
  eventually,
  type QueueFixture,
  queueFixture,
  startFixtureWorker,
  testSettings,
} from './support/queue-fixture.js';

let fixture: QueueFixture;
let worker: SyncWorker | undefined;
let output: string[];
beforeEach(() => {
  output = [];
  const capture = (chunk: string | Uint8Array) => {
    output.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await worker?.stop(5000);
  worker = undefined;
  await fixture?.cleanup();
});

async function startWorker(engine: ReturnType<typeof fakeEngine>) {
  worker = await startFixtureWorker(fixture, engine);
}

const wait = { wait: true, timeout: '20' };

describe('tms-sync trigger', () => {
  it("is expanded by the worker with its own partitions and streams, not the trigger's environment", async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1,2' });
    const engine = fakeEngine();
    await startWorker(engine);
    // The terminal that triggers has no TMS_OPERATORS: the worker's operators decide.
    const terminal = testSettings({ QUEUE_PREFIX: fixture.prefix });
    expect(terminal.operators).toEqual([]);
    expect(await trigger(terminal, ['invoices', 'tasks'], { full: true, ...wait })).toBe(0);
    expect(engine.runs.map((run) => `${run.stream}/${run.partition}`).sort()).toEqual([
      'invoices/',
      'invoices/deleted',
      'tasks/1',
      'tasks/2',
    ]);
    expect(engine.runs.every((run) => run.options.trigger === 'manual' && run.options.full === true)).toBe(
      true,
    );
    engine.runs.length = 0;
    expect(await trigger(terminal, ['all'], wait)).toBe(0);
    expect(engine.runs.filter((run) => run.stream === 'chat_messages')).toHaveLength(2);
  });

  it('runs a partition named as shown everywhere, and exits 2 when the worker has no such partition', async () => {
    fixture = queueFixture({ TMS_OPERATORS: '1,2' });
    const engine = fakeEngine();
    await startWorker(engine);
    expect(await trigger(fixture.settings, ['tasks/2'], wait)).toBe(0);
    expect(engine.runs.map((run) => `${run.stream}/${run.partition}`)).toEqual(['tasks/2']);
    await expect(trigger(fixture.settings, ['tasks/9'], wait)).rejects.toThrow(
      /the worker refused the request: UnknownStreamError: unknown partition tasks\/9; known: tasks\/1, tasks\/2/,
    );
  });

  it('lists the runs a line each, a stream of more than ten partitions in one line with its states counted', async () => {
    const operators = Array.from({ length: 12 }, (_, index) => String(1 + index));
    fixture = queueFixture({ TMS_OPERATORS: operators.join(',') });
    const engine = fakeEngine();
    await startWorker(engine);
    expect(await trigger(fixture.settings, ['invoices', 'tasks'], wait)).toBe(0);
    const printed = output.join('');
    expect(printed).toMatch(/^invoices +queued +manual-\S+$/m);
    expect(printed).toMatch(/^invoices\/deleted +queued +manual-\S+$/m);
    expect(printed).toMatch(/^tasks \(12 partitions\) +queued$/m);
    expect(printed).not.toMatch(/^tasks\/1 /m);
    expect(engine.runs.filter((run) => run.stream === 'tasks')).toHaveLength(12);
  });

  it('says so when no worker takes the request in time, and exits 0 without --wait', async () => {
    fixture = queueFixture();
    expect(await trigger(fixture.settings, ['invoices'], { timeout: '20' }, { expansionWaitMs: 300 })).toBe(
      0,
    );
    expect(output.join('')).toMatch(/request request-\S+ queued; no worker took it within 0 s/);
    expect((await fixture.queue.getJobCounts('waiting')).waiting).toBe(1);
  });

  it('with --wait, exits 0 when every run succeeded and 1 when one failed', async () => {
    fixture = queueFixture({ JOB_ATTEMPTS: '1' });
    await startWorker(
      fakeEngine((run) =>
        run.stream === 'clients'
          ? {
              result: 'failed',
              error: 'SettingsError: broken',
              cause: new SettingsError('TMS_OPERATORS', 'broken'),
            }
          : { pages: 2, records: 10 },
      ),
    );
    expect(await trigger(fixture.settings, ['invoices'], wait)).toBe(0);
    expect(output.join('')).toMatch(/invoices\/deleted\s+succeeded/);
    expect(await trigger(fixture.settings, ['invoices', 'clients'], wait)).toBe(1);
    // Failures sharing a reason are one line, naming the partitions (summary-table.ts).
    expect(output.join('')).toContain(
      'clients, clients/deleted: SettingsError: invalid configuration: TMS_OPERATORS: broken',
    );
  });

  it('with --wait during an active run, follows the follow-up run that starts after the request', async () => {
    fixture = queueFixture();
    const release = gate();
    const engine = fakeEngine(async (run) => {
      if (engine.runs.indexOf(run) === 0) await release.wait;
      return { records: engine.runs.indexOf(run) === 0 ? 1 : 2 };
    });
    await startWorker(engine);
    expect(await trigger(fixture.settings, ['addressbook'], { timeout: '20' })).toBe(0);
    await eventually(() => engine.runs.length === 1, 5000, 'the first run');
    const waiting = trigger(fixture.settings, ['addressbook'], wait);
    await eventually(() => output.join('').includes('follow-up'), 5000, 'the follow-up request');
    release.open();
    expect(await waiting).toBe(0);
    expect(engine.runs).toHaveLength(2);
    expect(output.join('')).toMatch(/addressbook\s+succeeded\s+0\s+2/);
  });

  it('refuses an unknown stream as a usage error', async () => {
    fixture = queueFixture();
    await expect(trigger(fixture.settings, ['nope'], { timeout: '20' })).rejects.toBeInstanceOf(
      UnknownStreamError,
    );
  });
});
