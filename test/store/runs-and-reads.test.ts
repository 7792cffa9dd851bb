import { expect, it } from 'vitest';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';
import { invoice, keyed, later, now, task } from './records.js';
import { commitRecords, openTestRun } from './run-pages.js';

describeOnEachDialect('runs and reads', (fixture) => {
  const store = useStore(fixture);

  /** A run whose clock the test moves. */
  const clocked = (
    stream: string,
    partition = '',
    trigger: 'schedule' | 'manual' | 'webhook' = 'schedule',
  ) => {
    const clock = { at: now };
    const opening = store().openRun({ stream, partition, trigger, now: () => clock.at });
    return { clock, opening };
  };

  it('records runs from start to finish and lists the latest per stream partition', async () => {
    const first = clocked('invoices');
    const failed = await first.opening;
    await failed.commitPage({
      records: keyed([invoice('a', 1), invoice('b', 2)]),
      state: { strategyState: null },
    });
    await failed.flush();
    first.clock.at = later;
    await failed.finish({ result: 'failed', error: 'boom' });
    const second = clocked('invoices', '', 'manual');
    second.clock.at = later;
    const running = await second.opening;
    // A run's row is written by its first write at the latest (partition-run.ts).
    await running.commitPage({ records: keyed([invoice('c', 3)]), state: { strategyState: null } });
    await running.flush();
    const idle = clocked('tasks', 'op1', 'webhook');
    const tasks = await idle.opening;
    idle.clock.at = later;
    await tasks.finish({ result: 'succeeded', error: null });
    expect(running.runId).toBeGreaterThan(failed.runId!);
    expect(await store().listRuns({ stream: 'invoices' })).toMatchObject([
      { id: running.runId, result: 'running', finishedAt: null, trigger: 'manual', pages: 0 },
      {
        id: failed.runId,
        result: 'failed',
        error: 'boom',
        pages: 1,
        inserted: 2,
        drift: 0,
        held: 0,
        startedAt: now,
        finishedAt: later,
      },
    ]);
    expect((await store().lastRuns()).map((r) => [r.stream, r.partition, r.id])).toEqual([
      ['invoices', '', running.runId],
      ['tasks', 'op1', tasks.runId],
    ]);
    expect(await store().listRuns({ limit: 1 })).toHaveLength(1);
  });

  it('records a run that wrote nothing as one row when it ends, its success included', async () => {
    const quiet = clocked('tasks', 'op2');
    const run = await quiet.opening;
    quiet.clock.at = later;
    await run.finish({ result: 'succeeded', error: null });
    const failing = clocked('tasks', 'op3');
    const failed = await failing.opening;
    await failed.finish({ result: 'failed', error: 'the TMS answered 500' });
    expect(await store().listRuns({ stream: 'tasks' })).toMatchObject([
      { id: failed.runId, partition: 'op3', result: 'failed', error: 'the TMS answered 500', pages: 0 },
      { id: run.runId, partition: 'op2', result: 'succeeded', startedAt: now, finishedAt: later, pages: 0 },
    ]);
    expect(await store().lastSuccesses()).toEqual([{ stream: 'tasks', partition: 'op2', finishedAt: later }]);
    expect((await store().lastRuns()).map((r) => [r.partition, r.id])).toEqual([
      ['op2', run.runId],
      ['op3', failed.runId],
    ]);
  });

  it('records runs that wrote nothing and end together each as its own row, two of one partition included', async () => {
    const partitions = [...Array.from({ length: 250 }, (_, i) => `op${i}`), 'op7'];
    const runs = await Promise.all(partitions.map((partition) => clocked('tasks', partition).opening));
    await Promise.all(
      runs.map((run, i) =>
        run.finish({ result: i % 2 ? 'failed' : 'succeeded', error: i % 2 ? `#${i}` : null }),
      ),
    );
    const ids = runs.map((run) => run.runId);
    expect(new Set(ids).size).toBe(partitions.length);
    const listed = await store().listRuns({ stream: 'tasks', limit: 1000 });
    const byId = new Map(listed.map((row) => [row.id, row]));
    runs.forEach((run, i) => {
      expect(byId.get(run.runId!)).toMatchObject({
        partition: partitions[i],
        result: i % 2 ? 'failed' : 'succeeded',
        error: i % 2 ? `#${i}` : null,
      });
    });
  });

  it("keeps a partition's latest success when a later run recorded whole failed", async () => {
    const first = clocked('tasks', 'op4');
    const succeeded = await first.opening;
    await succeeded.finish({ result: 'succeeded', error: null });
    const second = clocked('tasks', 'op4');
    second.clock.at = later;
    await (await second.opening).finish({ result: 'failed', error: 'boom' });
    expect(await store().lastSuccesses()).toEqual([{ stream: 'tasks', partition: 'op4', finishedAt: now }]);
  });

  it('reads the ids a stream references, of its live rows', async () => {
    const ops = ['op1', 'op2'];
    await commitRecords(
      store(),
      'tasks',
      { scope: 'op1', records: keyed(['t3', 't1'].map((id) => task(id))) },
      { partition: 'op1' },
    );
    await commitRecords(
      store(),
      'tasks',
      { scope: 'op2', records: keyed([task('t0')]) },
      { partition: 'op2' },
    );
    await commitRecords(
      store(),
      'tasks',
      { scope: 'op1', records: keyed([task('t4')]), deletedUpstream: true },
      { partition: 'op1' },
    );
    const run = await openTestRun(store(), 'invoices', { dryRun: true });
    expect(await Promise.all(ops.map((scope) => run.referencedIds('tasks', 'id', scope)))).toEqual([
      ['t1', 't3'],
      ['t0'],
    ]);
  });

  it("keeps each partition's latest run and latest success as runs pile up, and when runs are deleted", async () => {
    const run = async (partition: string, result: 'succeeded' | 'failed', at: Date) => {
      const opened = await openTestRun(store(), 'tasks', { partition, trigger: 'schedule', now: at });
      await opened.finish({ result, error: null });
      return opened.runId!;
    };
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    await run('op1', 'succeeded', at(1));
    const success = await run('op1', 'succeeded', at(2));
    const failure = await run('op1', 'failed', at(3));
    const other = await run('op2', 'failed', at(4));
    const latest = () =>
      store()
        .lastRuns()
        .then((runs) => runs.map((r) => [r.partition, r.id, r.result]));
    const successes = () =>
      store()
        .lastSuccesses()
        .then((runs) => runs.map((r) => [r.partition, r.finishedAt.toISOString()]));
    expect(await latest()).toEqual([
      ['op1', failure, 'failed'],
      ['op2', other, 'failed'],
    ]);
    expect(await successes()).toEqual([['op1', at(2).toISOString()]]);
    const url = await fixture.url();
    await fixture.query(url, `delete from sync_runs where id in (${failure}, ${success})`);
    expect((await latest())[0]).toEqual(['op1', success - 1, 'succeeded']);
    expect(await successes()).toEqual([['op1', at(1).toISOString()]]);
    await fixture.query(url, "delete from sync_runs where partition = 'op1'");
    expect(await latest()).toEqual([['op2', other, 'failed']]);
    expect(await successes()).toEqual([]);
  });

  it('indexes sync_runs by its key and sync_runs_stream alone: every run pays for each index', async () => {
    await openTestRun(store(), 'tasks', { partition: 'op1' }).then((run) =>
      run.finish({ result: 'succeeded', error: null }),
    );
    const url = await fixture.url();
    const indexes = url.startsWith('sqlite:')
      ? "select name from sqlite_master where type = 'index' and tbl_name = 'sync_runs' and name not like 'sqlite_%'"
      : "select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'sync_runs' and indexname <> 'sync_runs_pkey'";
    const names = await fixture.query<{ name: string }>(url, indexes);
    expect(names.map((row) => row.name)).toEqual(['sync_runs_stream']);
  });

  it("reads every partition's latest result and error and its last success in one read, as lastRuns and lastSuccesses tell them", async () => {
    const run = async (
      stream: string,
      partition: string,
      result: 'succeeded' | 'failed',
      minutes: number,
    ) => {
      const at = new Date(now.getTime() + minutes * 60_000);
      const opened = await openTestRun(store(), stream, { partition, trigger: 'schedule', now: at });
      await opened.finish({ result, error: result === 'failed' ? `failed at ${minutes}` : null });
    };
    await run('tasks', 'op1', 'succeeded', 1);
    await run('tasks', 'op1', 'failed', 2);
    await run('tasks', 'op2', 'failed', 3);
    await run('rides', 'op1', 'succeeded', 4);
    const running = await openTestRun(store(), 'invoices', { trigger: 'manual', now: later });
    await running.commitPage({ records: keyed([invoice('a', 1)]), state: { strategyState: null } });
    await running.flush();
    const [runs, successes] = await Promise.all([store().lastRuns(), store().lastSuccesses()]);
    const successOf = new Map(successes.map((s) => [`${s.stream}/${s.partition}`, s.finishedAt]));
    const expected = runs.map((r) => ({
      stream: r.stream,
      partition: r.partition,
      result: r.result,
      error: r.error,
      lastSuccessAt: successOf.get(`${r.stream}/${r.partition}`) ?? null,
    }));
    const byKey = (a: { stream: string; partition: string }, b: { stream: string; partition: string }) =>
      `${a.stream}/${a.partition}`.localeCompare(`${b.stream}/${b.partition}`);
    expect([...(await store().partitionHealth())].sort(byKey)).toEqual([...expected].sort(byKey));
    expect(expected.map((h) => [h.stream, h.partition, h.result, h.error])).toEqual([
      ['invoices', '', 'running', null],
      ['rides', 'op1', 'succeeded', null],
      ['tasks', 'op1', 'failed', 'failed at 2'],
      ['tasks', 'op2', 'failed', 'failed at 3'],
    ]);
  });

  it("reads every known partition's watermark, latest run and last success, as listStates, lastRuns and lastSuccesses tell them", async () => {
    const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
    const page = { records: keyed([invoice('a', 7)]), state: { watermark: 7, strategyState: null } };
    await commitRecords(store(), 'invoices', page, { now: at(1) });
    const failed = await openTestRun(store(), 'tasks', { partition: 'op1', trigger: 'schedule', now: at(2) });
    await failed.finish({ result: 'failed', error: 'no state: failed first run' });
    await commitRecords(
      store(),
      'tasks',
      { scope: 'op2', records: keyed([task('t1')]) },
      { partition: 'op2', now: at(3) },
    );
    const url = await fixture.url();
    // A cycle in progress, and a partition whose runs were pruned by hand (state, no run).
    await fixture.query(url, "update sync_state set cursor = 'c-1' where stream = 'invoices'");
    await fixture.query(url, "delete from sync_runs where partition = 'op2'");
    const [states, runs, successes] = await Promise.all([
      store().listStates(),
      store().lastRuns(),
      store().lastSuccesses(),
    ]);
    const key = (item: { stream: string; partition: string }) => `${item.stream}/${item.partition}`;
    const expected = [...new Set([...states, ...runs].map(key))].sort().map((name) => {
      const state = states.find((item) => key(item) === name);
      const run = runs.find((item) => key(item) === name);
      const [stream, partition] = [state ?? run!].map((item) => [item.stream, item.partition])[0]!;
      const { stream: _stream, partition: _partition, ...lastRun } = run ?? { stream, partition };
      return {
        stream,
        partition,
        watermark: state?.watermark ?? null,
        cycleInProgress: state?.cursor != null,
        lastRun: run ? lastRun : null,
        lastSuccessAt: successes.find((item) => key(item) === name)?.finishedAt ?? null,
      };
    });
    const overview = [...(await store().partitionOverview())].sort((a, b) => key(a).localeCompare(key(b)));
    expect(overview).toEqual(expected);
    expect(
      overview.map((item) => [key(item), item.watermark, item.cycleInProgress, item.lastRun?.result ?? null]),
    ).toEqual([
      ['invoices/', 7, true, 'succeeded'],
      ['tasks/op1', null, false, 'failed'],
      ['tasks/op2', null, false, null],
    ]);
  });

  it('counts rows, live and deleted', async () => {
    await commitRecords(store(), 'invoices', { records: keyed([invoice('a', 1), invoice('b', 2)]) });
    await commitRecords(store(), 'invoices', { records: keyed([invoice('c', 3)]), deletedUpstream: true });
    expect([
      await store().countRows('invoices'),
      await store().countRows('invoices', { live: true }),
      await store().countRows('invoices', { live: false }),
    ]).toEqual([3, 2, 1]);
  });

  it('answers a ping', async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });
});
