import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { PartitionSummary, RunProgress } from '../../src/sync/run-options.js';
import { describeOnEachDialect } from '../support/on-each-dialect.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

// V8's own test of whether two objects share a hidden class (a "map"). On Node 20 an object
// literal that opens with a spread and adds members after it gets a hidden class of its own
// once the literal's inline cache has warmed up (~10 calls): a sync keeps every partition's
// summary, so at 20,000 partitions that was 20,000 hidden classes, ~14 MB of a 33 MB heap.
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Enough partitions to pass the warm-up of the literals' inline caches several times over. */
const operators = 40;

describeOnEachDialect('the objects a run makes per partition', (fixture) => {
  let store: Store;
  let setup: SyncSetup;
  beforeAll(async () => {
    store = await openStore(await fixture.freshUrl());
    setup = await startSyncSetup(store, { operators, invoices: 5, clients: 5 });
  });
  afterAll(async () => {
    await setup.close();
    await store.close();
  });

  it('share one hidden class across partitions: summaries and progress reports', async () => {
    const progress: RunProgress[] = [];
    const summaries: PartitionSummary[] = await setup.engine.run(['settings'], {
      onProgress: (report) => progress.push(report),
    });
    expect(summaries).toHaveLength(operators);
    expect(summaries.every((summary) => summary.result === 'succeeded')).toBe(true);
    expect(progress.length).toBeGreaterThanOrEqual(operators);
    const shapes = (objects: readonly object[]) =>
      objects.slice(1).filter((object, i) => !haveSameMap(object, objects[i]!)).length;
    expect({ summaries: shapes(summaries), progress: shapes(progress) }).toEqual({
      summaries: 0,
      progress: 0,
    });
  }, 60_000);
});
