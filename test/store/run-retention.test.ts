import { expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { runsBetweenTrims } from '../../src/store/run-retention.js';
import type { Store } from '../../src/store/store.js';
import { describeOnEachDialect, useStore } from '../support/on-each-dialect.js';

const day = 86_400_000;
const start = Date.parse('2024-06-01T12:00:00.000Z');
const dayOf = (n: number) => new Date(start + n * day);

type Ending = 'succeeded' | 'failed';

/** One run of a partition that wrote nothing, started and ended on day `n`. */
async function runOn(store: Store, stream: string, partition: string, n: number, result: Ending) {
  const run = await store.openRun({ stream, partition, trigger: 'schedule', now: () => dayOf(n) });
  await run.finish({ result, error: result === 'failed' ? 'the TMS answered 500' : null });
  return run.runId!;
}

describeOnEachDialect('run retention', (fixture) => {
  const store = useStore(fixture);

  /** The runs left, oldest first, as `partition@day:result`. */
  const left = async (of: Store = store()) =>
    (await of.listRuns({ limit: 1000 }))
      .reverse()
      .map((run) => `${run.partition}@${(run.startedAt.getTime() - start) / day}:${run.result}`);

  it("forgets the runs started before the cut, never a partition's latest run or latest success", async () => {
    for (const [n, result] of [
      [0, 'succeeded'],
      [1, 'succeeded'],
      [2, 'failed'],
      [40, 'succeeded'],
    ] as const)
      await runOn(store(), 'tasks', 'op1', n, result);
    for (const [n, result] of [
      [0, 'succeeded'],
      [1, 'failed'],
      [2, 'failed'],
    ] as const)
      await runOn(store(), 'tasks', 'op2', n, result);
    await runOn(store(), 'tasks', 'op3', 30, 'failed');
    const latest = await store().lastRuns();
    const successes = await store().lastSuccesses();

    expect(await store().forgetRuns(dayOf(26))).toBe(4);

    // op2's latest run failed: its latest success (day 0) stays beside it, however old.
    expect(await left()).toEqual(['op1@40:succeeded', 'op2@0:succeeded', 'op2@2:failed', 'op3@30:failed']);
    expect(await store().lastRuns()).toEqual(latest);
    expect(await store().lastSuccesses()).toEqual(successes);
    expect(await store().forgetRuns(dayOf(26))).toBe(0);
  });

  it('forgets at most the limit, the oldest first', async () => {
    for (let n = 0; n < 5; n++) await runOn(store(), 'tasks', 'op1', n, 'succeeded');
    expect(await store().forgetRuns(dayOf(10), 2)).toBe(2);
    expect(await left()).toEqual(['op1@2:succeeded', 'op1@3:succeeded', 'op1@4:succeeded']);
  });

  it('forgets the runs older than keepRunsDays as runs end: the first run of a store, then every thousandth', async () => {
    for (let n = 0; n < 3; n++) await runOn(store(), 'tasks', 'op1', n, 'succeeded');
    await runOn(store(), 'tasks', 'op2', 1, 'succeeded');
    const kept = await openStore(await fixture.url(), { keepRunsDays: 14 });
    try {
      // Day 16's end forgets what started before day 2: op2's day 1 is its latest run and stays.
      await runOn(kept, 'tasks', 'op1', 16, 'succeeded');
      await kept.close();
      expect(await left()).toEqual(['op1@2:succeeded', 'op2@1:succeeded', 'op1@16:succeeded']);
    } finally {
      await kept.close().catch(() => undefined);
    }
  });

  it('trims again only after a thousand runs ended', async () => {
    const kept = await openStore(await fixture.url(), { keepRunsDays: 1 });
    const dayZero = async () => (await left()).filter((run) => run.endsWith('@0:succeeded')).sort();
    try {
      // The store's first run ends a trim (nothing is old yet); the next 999 end none.
      await runOn(kept, 'tasks', 'op1', 0, 'succeeded');
      await runOn(kept, 'tasks', 'op2', 0, 'succeeded');
      for (let n = 2; n < runsBetweenTrims; n++)
        await runOn(kept, 'tasks', `op${(n % 7) + 1}`, 10, 'succeeded');
      expect(await dayZero()).toEqual(['op1@0:succeeded', 'op2@0:succeeded']);
      // The thousandth after the first: day 0 is more than a day before day 10, and not op1's or op2's latest.
      await runOn(kept, 'tasks', 'op3', 10, 'succeeded');
      await kept.close();
      expect(await dayZero()).toEqual([]);
    } finally {
      await kept.close().catch(() => undefined);
    }
  });
});
